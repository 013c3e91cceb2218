import { execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useScenarioWithRedis } from '../helpers/use-scenario-with-redis.js';

// `run --load-workers 2` against the same seed run by one process. The schedule is dealt
// round-robin, so the two runs send the very same requests (the same ids); what the router and
// the simulator answer here does not depend on timing (quotas far from their limits, no faults),
// so the answers and the verdicts must match too (docs/decisions/load-workers.md says where
// they may not). One of the two workers joins as a host of its own would: `load-worker --join`.

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist/bin/throttlelab.js');
const exec = promisify(execFile);

const SCENARIO = `
version: 1
name: load-workers
seed: 5
providers:
  - id: openai
    vendor: openai
    models: [gpt-4o-mini]
    keys: [{ id: main, value: sk-sim-openai-main-0001 }]
    quotas: [{ metric: requests, limit: 5000, per: 1m }]
    latency:
      ttft: { dist: lognormal, median: 20ms, p99: 80ms }
      completionTokens: { dist: uniform, min: 4, max: 12 }
router: { kind: reference }
load:
  mode: open
  duration: 3s
  rate: 10
  requests:
    models: [gpt-4o-mini]
    stream: 0.3
    promptTokens: { dist: uniform, min: 20, max: 60 }
    deadline: 20s
`;

const env = useScenarioWithRedis('tl-load-workers-', SCENARIO);

interface Report {
  verdict: string;
  load: { sent: number; dropped: number; byStatus: Record<string, number> };
  checks: Array<{ id: string; verdict: string }>;
  loadWorkers?: Array<{ segment: number; sent: number; loopLag: { p99Ms: number } }>;
}

async function runTo(out: string, ...args: string[]): Promise<{ report: Report; ids: string[]; stderr: string }> {
  const r = await exec(process.execPath, [CLI, 'run', env.file, '--seed', '5', '--out', out, '--quiet', ...args], {
    cwd: ROOT,
    timeout: 120_000,
  }).catch((e: { stdout: string; stderr: string; code: number }) => e);
  const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
  const lines = (await readFile(join(out, 'outcomes.jsonl'), 'utf8')).trim().split('\n');
  const ids = lines.map((l) => (JSON.parse(l) as { id: string }).id).sort();
  return { report, ids, stderr: r.stderr };
}

/** The verdict of every check that neither run left undecided for its own lag. */
function decided(r: Report): Map<string, string> {
  return new Map(r.checks.filter((c) => c.verdict !== 'inconclusive').map((c) => [c.id, c.verdict]));
}

describe('run --load-workers', () => {
  it('sends the one-process schedule from two workers, one joined with load-worker, and judges it alike', async () => {
    const one = await runTo(join(env.dir, 'one'));
    const joiner = spawn(process.execPath, [CLI, 'load-worker', '--join', env.redis.url], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let joined = '';
    joiner.stdout.on('data', (d: Buffer) => (joined += d.toString()));
    joiner.stderr.on('data', (d: Buffer) => (joined += d.toString()));
    const exited = new Promise<number | null>((resolve) => joiner.once('exit', resolve));
    // The joiner retries until the run has opened its group: it takes whichever is newest.
    const two = await runTo(
      join(env.dir, 'two'),
      '--load-workers',
      '2',
      '--local-load-workers',
      '1',
      '--redis-url',
      env.redis.url,
    );
    expect(await exited, joined).toBe(0);
    expect(joined).toMatch(/segment \d of 2/);

    expect(one.report.load.sent).toBe(30);
    expect(two.report.load.sent).toBe(one.report.load.sent);
    expect(two.ids).toEqual(one.ids);
    expect(two.report.load.byStatus).toEqual(one.report.load.byStatus);
    expect(two.report.loadWorkers?.map((w) => [w.segment, w.sent])).toEqual([
      [0, 15],
      [1, 15],
    ]);
    const a = decided(one.report);
    const b = decided(two.report);
    for (const [id, verdict] of a) if (b.has(id)) expect([id, b.get(id)]).toEqual([id, verdict]);
    expect(a.size).toBeGreaterThan(0);
  }, 240_000);
});
