import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { fleetChoice } from '../../bin/commands/run.js';
import { routerCommand } from '../../bin/commands/router.js';
import type { Io } from '../../bin/io.js';
import { freePort } from '../../harness/launch/launch-command.js';
import { dropPrefix, SHARED_REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { loadRunScenarioFile } from '../../harness/scenario/parse-run-scenario.js';

const ROOT = join(import.meta.dirname, '..', '..');
const exec = promisify(execFile);
const tmp = await mkdtemp(join(tmpdir(), 'throttlelab-fleet-'));
afterAll(() => rm(tmp, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [join(ROOT, 'dist/bin/throttlelab.js'), ...args], {
      cwd: ROOT,
      timeout: 90_000,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** A pack of one small fleet scenario (the shipped ones are judged in test/integration/harness-fleet.test.ts). */
async function tinyPack(): Promise<string> {
  const pack = join(tmp, 'pack');
  await mkdir(join(pack, 'fleet'), { recursive: true });
  await writeFile(
    join(pack, 'fleet', 'tiny.yaml'),
    `version: 1
name: fleet-tiny
seed: 5
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim-tiny }], latency: { completionTokens: 4 } }
router: { kind: reference, replicas: 2, store: redis }
load: { rate: 20, duration: 2s, requests: { models: [openai/gpt-4o-mini] } }
`,
  );
  return pack;
}

describe('throttlelab conform --fleet', () => {
  it('runs the fleet group of a pack against replicas of the reference router, keeping each replica’s log', async () => {
    const pack = await tinyPack();
    const out = join(tmp, 'fleet');
    const fleetFolders = async () => (await readdir(tmpdir())).filter((f) => f.startsWith('throttlelab-fleet-5-'));
    const before = await fleetFolders();
    const r = await cli('conform', '--dir', pack, '--fleet', '--out', out);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('→ fleet-tiny (seed 5)');
    expect(r.stdout).toContain(
      'conformance: 1 of 1 scenarios pass against 2 replicas of the reference router sharing state through Redis',
    );
    const logs = join(out, 'logs', 'fleet-tiny');
    // Each replica's log beside the scenario's evidence (ledger and client outcomes).
    expect((await readdir(logs)).sort()).toEqual(['ledger.jsonl', 'outcomes.jsonl', 'replica-0.log', 'replica-1.log']);
    expect(await readFile(join(logs, 'replica-1.log'), 'utf8')).toMatch(
      /router: sharing state with the fleet through redis:\/\/127\.0\.0\.1:\d+ \(key prefix "throttlelab:r[0-9a-z]+:"\)/,
    );
    const json = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
    expect(json.fleet).toMatchObject({ replicas: 2, store: 'redis', spread: 'round-robin', requests: [20, 20] });
    // The replicas' temporary folder (their config and logs) is gone once the logs are kept.
    expect((await fleetFolders()).filter((f) => !before.includes(f))).toEqual([]);
  }, 60_000);

  it('shares state through a running Redis given --redis-url, each run under a key prefix of its own, its keys dropped after', async () => {
    // Two runs of one seed at once on the team's Redis: a prefix from the seed alone would collide.
    const out = [join(tmp, 'ext-a'), join(tmp, 'ext-b')];
    const pack = await tinyPack();
    const runs = await Promise.all(
      out.map((o) => cli('conform', '--dir', pack, '--fleet', '--redis-url', SHARED_REDIS_URL, '--out', o)),
    );
    const prefixes: string[] = [];
    for (const [i, r] of runs.entries()) {
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const log = await readFile(join(out[i]!, 'logs', 'fleet-tiny', 'replica-0.log'), 'utf8');
      const m = /sharing state with the fleet through (\S+) \(key prefix "(throttlelab:r5:[0-9a-z]+:)"\)/.exec(log);
      expect(m, log).not.toBeNull();
      // The Redis given, not a redis-server of the run's own on another port.
      expect(m![1]).toBe(SHARED_REDIS_URL);
      prefixes.push(m![2]!);
    }
    expect(new Set(prefixes).size).toBe(2);
    const { Redis } = await import('ioredis');
    const redis = new Redis(SHARED_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0 });
    await redis.connect();
    try {
      for (const p of prefixes) expect(await redis.keys(`${p}*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  }, 180_000);

  it('refuses a --redis-url that is not redis:// or rediss://, with exit 2', async () => {
    for (const url of ['http://127.0.0.1:6379', '127.0.0.1:6379']) {
      const r = await cli('run', 'scenarios/conformance/fleet/01-429-burst-one-replica.yaml', '--redis-url', url);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `option '--redis-url <url>' argument '${url}' is invalid. expected a redis:// or rediss:// URL such as redis://127.0.0.1:6379.`,
      );
    }
  });

  it('refuses a store it does not know, with exit 2', async () => {
    const r = await cli('run', 'scenarios/conformance/fleet/03-redis-down.yaml', '--store', 'nowhere');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "option '--store <memory|redis>' argument 'nowhere' is invalid. expected memory or redis.",
    );
  });

  it('says which Redis faults it cannot play when the replicas keep their state in memory, or run elsewhere', async () => {
    const loaded = await loadRunScenarioFile(join(ROOT, 'scenarios/conformance/fleet/03-redis-down.yaml'));
    if (!loaded.ok) throw new Error(loaded.report);
    const notes: string[] = [];
    const memory = fleetChoice(loaded.scenario, { store: 'memory' }, (l) => notes.push(l));
    expect(memory.router).toMatchObject({ kind: 'reference', replicas: 3, store: 'memory' });
    expect(memory.redisFaults).toEqual([]);
    const url = fleetChoice(loaded.scenario, { routerUrl: 'http://127.0.0.1:4000/v1' }, (l) => notes.push(l));
    expect(url.redisFaults).toEqual([]);
    expect(notes).toEqual([
      'note: redis faults redis-down not played: the replicas keep their state in memory',
      "note: --router-url names one running router: the scenario's fleet (3 replicas) is not started; point it at your load balancer to judge a fleet",
      'note: redis faults redis-down not played: no Redis is started for a router that is already running',
    ]);
    notes.length = 0;
    const external = fleetChoice(loaded.scenario, { redisUrl: SHARED_REDIS_URL }, (l) => notes.push(l));
    expect(external.router).toMatchObject({ replicas: 3, store: 'redis' });
    expect(external.redisFaults).toEqual([]);
    expect(notes).toEqual([
      'note: redis faults redis-down not played: --redis-url names a Redis throttlelab does not own, so it cannot stop, restart or pause it',
    ]);
  });
});

function captureIo(env: Record<string, string>): Io & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    lines,
    errors,
    out: (l) => lines.push(l),
    err: (l) => errors.push(l),
    env,
    stop: new AbortController().signal,
    randomSeed: () => 1,
    isTTY: false,
    status: () => {},
  };
}

describe('throttlelab router with a Redis store', () => {
  const config = async (prefix: string) => {
    const file = join(tmp, `router-${prefix.replace(/\W/g, '')}.yaml`);
    await writeFile(
      file,
      `version: 1
providers:
  - { id: openai, vendor: openai, baseUrl: http://127.0.0.1:9/v1, keys: [{ id: main, env: KEY }], models: [gpt-4o-mini] }
store: { kind: redis, env: FLEET_REDIS, keyPrefix: "${prefix}" }
`,
    );
    return file;
  };

  it('says it shares state with the fleet, and as which replica', async () => {
    const prefix = uniquePrefix('cli');
    const io = captureIo({ KEY: 'sk-x', FLEET_REDIS: SHARED_REDIS_URL, THROTTLELAB_ROUTER_REPLICA: 'replica-7' });
    expect(await routerCommand({ config: await config(prefix), port: 0, durationMs: 100 }, io)).toBe(0);
    expect(io.lines).toContain(
      `router: sharing state with the fleet through ${SHARED_REDIS_URL} (key prefix "${prefix}")`,
    );
    expect(io.lines).toContain(
      `  state: shared through ${SHARED_REDIS_URL} as replica "replica-7" (key prefix "${prefix}")`,
    );
    expect(io.errors).toEqual([]);
    await dropPrefix(SHARED_REDIS_URL, prefix);
  });

  it('serves on local state at once when Redis is not there, saying so once and hiding the URL’s password', async () => {
    const port = await freePort();
    const io = captureIo({ KEY: 'sk-x', FLEET_REDIS: `redis://:not-a-secret@127.0.0.1:${port}` });
    const started = Date.now();
    expect(await routerCommand({ config: await config('cli-nowhere:'), port: 0, durationMs: 1000 }, io)).toBe(0);
    expect(Date.now() - started).toBeLessThan(2900);
    expect(io.errors.filter((l) => l.includes('shared state'))).toEqual([
      `router: shared state at redis://:***@127.0.0.1:${port} is unreachable (ECONNREFUSED); serving on local state until it answers`,
    ]);
    expect(io.lines).toContain(
      `  state: shared through redis://:***@127.0.0.1:${port} as replica "${io.lines.join('').match(/as replica "([^"]+)"/)![1]}" (key prefix "cli-nowhere:")`,
    );
    expect([...io.lines, ...io.errors].join('\n')).not.toContain('not-a-secret');
  });
});
