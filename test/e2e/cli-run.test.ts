import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { conform } from '../../bin/commands/conform.js';
import type { Io } from '../../bin/io.js';
import type { CheckResult } from '../../harness/checks/types.js';
import type { Report } from '../../harness/report/report.js';
import { TOOL_VERSION } from '../../harness/version.js';
import { isStarvedTimingFail } from '../helpers/starved-timing-fail.js';

const ROOT = join(import.meta.dirname, '..', '..');
const exec = promisify(execFile);
const tmp = await mkdtemp(join(tmpdir(), 'throttlelab-run-'));
afterAll(() => rm(tmp, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [join(ROOT, 'dist/bin/throttlelab.js'), ...args], {
      cwd: ROOT,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

function captureIo(): Io & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    lines,
    errors,
    out: (l) => lines.push(l),
    err: (l) => errors.push(l),
    env: { PATH: process.env.PATH },
    stop: new AbortController().signal,
    randomSeed: () => 1,
    isTTY: false,
    status: () => {},
  };
}

/** What the passes-429 router breaks on 429-burst.yaml (SIG-1, FO-2, OWN-3). */
const BROKEN = ['no-429', 'no-needless-error', 'no-leak'];

describe('throttlelab run and report', () => {
  it('runs a broken router command, prints the verdicts, writes the report folder and exits 1', async () => {
    const out = join(tmp, 'run');
    const r = await cli(
      'run',
      'test/fixtures/harness/429-burst.yaml',
      '--router-cmd',
      'node --import tsx test/fixtures/routers/serve.ts passes-429',
      '--out',
      out,
    );
    expect(r.code, r.stderr).toBe(1);
    const json = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
    // A timing check may FAIL on a starved machine, but only within the starvation the run measured
    // (its worst violation no more than that); any other FAIL is the router's.
    const starved: string[] = json.checks
      .filter((c: CheckResult) => !BROKEN.includes(c.id) && isStarvedTimingFail(c, json))
      .map((c: CheckResult) => c.id);
    const failedIds = json.checks.filter((c: CheckResult) => c.verdict === 'fail').map((c: CheckResult) => c.id);
    expect(failedIds.filter((id: string) => !starved.includes(id)).sort(), r.stdout).toEqual([...BROKEN].sort());
    expect(r.stdout, r.stdout).toContain('throttlelab run: scenario "harness-429-burst" (seed 101)');
    // On a starved machine some requests time out (503/504): the figure then adds "; N got other errors".
    expect(r.stdout, r.stdout).toMatch(
      /^ {2}no-429 +FAIL +[1-9]\d* of 100 client requests got 429( \(providers answered \d+ 429s?\))?(; \d+ got other errors)?$/m,
    );
    expect(r.stdout, r.stdout).toMatch(
      new RegExp(`^ {2}retry-after +(PASS|INCONCLUSIVE${starved.includes('retry-after') ? '|FAIL' : ''})`, 'm'),
    );
    // The 429 it hands on was needless (the other provider could serve) and is the provider's own,
    // naming its organisation: FO-2 and OWN-3 fail with SIG-1.
    expect(r.stdout, r.stdout).toMatch(/^ {2}no-needless-error +FAIL /m);
    expect(r.stdout, r.stdout).toMatch(/^ {2}no-leak +FAIL /m);
    expect(r.stdout, r.stdout).toMatch(
      new RegExp(
        `^verdict: FAIL \\(\\d+ passed, ${3 + starved.length} failed, \\d+ skipped(, \\d+ inconclusive)?\\)$`,
        'm',
      ),
    );
    expect(json).toMatchObject({
      schema: 'throttlelab.report/v1',
      tool: { name: 'throttlelab', version: TOOL_VERSION },
      seed: 101,
      verdict: 'fail',
    });
    expect(json.scenario.sha256).toMatch(/^[0-9a-f]{64}$/);
    // Each check's time is how long judging it took (wall ms, so not pinned here).
    expect(await readFile(join(out, 'junit.xml'), 'utf8')).toMatch(
      /<testcase classname="throttlelab\.harness-429-burst" name="no-429" time="\d+\.\d{3}"><failure/,
    );
    expect(await readFile(join(out, 'summary.md'), 'utf8')).toContain('| no-429 | ❌ fail |');
    expect(await readFile(join(out, 'index.html'), 'utf8')).toContain('<svg');
    // The raw evidence stays with the report: the router's own output, every attempt, every client outcome.
    expect(await readFile(join(out, 'router.log'), 'utf8')).toContain(
      'passes-429 router listening on http://127.0.0.1:',
    );
    const ledger = (await readFile(join(out, 'ledger.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const outcomes = (await readFile(join(out, 'outcomes.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(outcomes).toHaveLength(100);
    const evidenceId = json.checks.find((c: { id: string }) => c.id === 'no-429').evidence[0].correlationId;
    expect(outcomes.find((o: { id: string }) => o.id === evidenceId)).toMatchObject({ status: 429 });
    expect(ledger.some((row: { correlationId: string }) => row.correlationId === evidenceId)).toBe(true);
    expect(json.faults).toEqual([expect.objectContaining({ id: 'burst', optional: false })]);
    expect(json.faults[0].matched).toBeGreaterThan(0);

    const again = await cli('report', join(out, 'report.json'), '--out', join(tmp, 'again'));
    expect(again.code).toBe(1);
    expect(again.stdout).toMatch(
      /^ {2}no-429 +FAIL +[1-9]\d* of 100 client requests got 429( \(providers answered \d+ 429s?\))?(; \d+ got other errors)?$/m,
    );
    expect(await readFile(join(tmp, 'again', 'index.html'), 'utf8')).toEqual(
      await readFile(join(out, 'index.html'), 'utf8'),
    );

    // A saved inconclusive or interrupted run is never a pass: exit 3 when re-rendered.
    for (const verdict of ['inconclusive', 'interrupted']) {
      const saved = join(tmp, `${verdict}.json`);
      const checks = json.checks.map((c: { verdict: string }) => ({
        ...c,
        verdict: c.verdict === 'fail' ? 'pass' : c.verdict,
      }));
      await writeFile(
        saved,
        JSON.stringify({ ...json, checks, verdict, inconclusive: ['fault "burst" matched no attempt'] }),
      );
      const r = await cli('report', saved, '--out', join(tmp, verdict));
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout).toContain(verdict === 'inconclusive' ? 'verdict: INCONCLUSIVE' : 'verdict: INTERRUPTED');
    }
    // Five CLI processes, a tsx router and 5 s of load: 14-17 s on a busy machine, past vitest's default 20 s once.
  }, 60_000);

  it('refuses a scenario without a load section, located, with exit 2', async () => {
    const file = join(tmp, 'no-load.yaml');
    await writeFile(
      file,
      '# only a world\nversion: 1\nname: no-load\nproviders:\n  - { id: openai, vendor: openai, models: [m], keys: [{ id: main, value: sk-1 }] }\n',
    );
    const r = await cli('run', file);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `${file}:2:1 SCENARIO_MISSING_FIELD (root): throttlelab run needs a "load" section (mode, duration, rate or connections, requests)\n`,
    );
  });

  it('refuses a router URL off loopback, and a report that is not one', async () => {
    expect((await cli('run', 'scenarios/quickstart.yaml', '--router-url', 'http://10.0.0.8:4000/v1')).code).toBe(2);
    const bogus = join(tmp, 'bogus.json');
    await writeFile(bogus, '{"hello":1}');
    const r = await cli('report', bogus);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('HARNESS_REPORT_INVALID: Failed to read');
    expect(r.stderr).toContain('bogus.json: it is not a throttlelab report');
  });
});

describe('a router that does not serve /v1', () => {
  const naiveUnder = (base: string) => `node --import tsx test/fixtures/routers/serve.ts naive ${base}`;
  /**
   * The answers line shows no 404 (the path was found) and 200s (served): 100×200 on a quiet
   * machine; on a starved one the naive router times some out (503/504), which is the machine, not
   * the base path. The run without the base path below gets 100×404.
   */
  const servedUnderBase = (stdout: string) => {
    const byStatus = Object.fromEntries(
      [...(/^answers: ([^;]*);/m.exec(stdout)?.[1]?.matchAll(/(\d+)×(\d+)/g) ?? [])].map((m) => [m[2], Number(m[1])]),
    );
    return byStatus['404'] === undefined && (byStatus['200'] ?? 0) > 0;
  };

  it('is reached under --router-base-path (ready at <base>/models) and judged like any other', async () => {
    const r = await cli(
      'run',
      'test/fixtures/harness/429-burst.yaml',
      '--router-cmd',
      naiveUnder('/api/v2'),
      '--router-base-path',
      '/api/v2',
      '--out',
      join(tmp, 'base-path'),
    );
    // Every request reached the naive router's API under the base path (none 404s) and it served.
    expect(servedUnderBase(r.stdout), r.stdout + r.stderr).toBe(true);
    expect(r.stdout).toMatch(/^faults \(times from the load's start\): burst matched [1-9]/m);
  }, 60_000);

  it('is polled at --ready-path when it has no <base>/models', async () => {
    const r = await cli(
      'run',
      'test/fixtures/harness/429-burst.yaml',
      '--router-cmd',
      naiveUnder('/'),
      '--router-base-path',
      '/',
      '--ready-path',
      '/healthz',
      '--out',
      join(tmp, 'ready-path'),
    );
    expect(servedUnderBase(r.stdout), r.stdout + r.stderr).toBe(true);
  }, 60_000);

  it('without --router-base-path, gets no verdict that passes: every request 404s, nothing reached a provider', async () => {
    const r = await cli(
      'run',
      'test/fixtures/harness/429-burst.yaml',
      '--router-cmd',
      naiveUnder('/api/v2'),
      '--out',
      join(tmp, 'no-base-path'),
    );
    expect(r.code, r.stdout).toBe(3);
    expect(r.stdout).toMatch(/^answers: 100×404;/m);
    expect(r.stdout).toMatch(/^ {2}goodput +SKIP +no request reached a provider/m);
    expect(r.stdout).toMatch(/^verdict: INCONCLUSIVE \(\d+ passed, 0 failed/m);
  }, 60_000);
});

// The whole pack is played in simulated time (test/integration/simulated-run.test.ts: every scenario
// passes, twice, to the same report). On the wall clock two of its scenarios prove the CLI path: a
// combined report of several scenarios against the reference router, with real sockets and timers.
const WALL_CLOCK_SUBSET = ['05-hanging-provider.yaml', '10-keep-alive-hold.yaml'];

describe('the conformance pack', () => {
  it('passes on the reference router, written as one combined report', async () => {
    const io = captureIo();
    const pack = join(tmp, 'pack');
    await mkdir(pack);
    for (const f of WALL_CLOCK_SUBSET) await copyFile(join(ROOT, 'scenarios', 'conformance', f), join(pack, f));
    const out = join(tmp, 'conformance');
    const code = await conform({ dir: pack, out }, io);
    const json = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
    expect(json.schema).toBe('throttlelab.reports/v1');
    expect(json.reports).toHaveLength(2);
    // On a machine too busy to judge timing, a scenario may be INCONCLUSIVE (exit 3), and a timing
    // check may FAIL within the starvation its run measured; no other check may fail.
    const reports = json.reports as Report[];
    const real = reports.flatMap((r) =>
      r.checks
        .filter((c) => c.verdict === 'fail' && !isStarvedTimingFail(c, r))
        .map((c) => `${r.scenario.name}: ${c.id}`),
    );
    expect(real, io.lines.join('\n')).toEqual([]);
    const starved = reports.filter((r) => r.verdict === 'fail').length;
    for (const r of reports) expect(['pass', 'inconclusive', ...(starved > 0 ? ['fail'] : [])]).toContain(r.verdict);
    expect(starved > 0 ? [1] : [0, 3], io.lines.join('\n')).toContain(code);
    expect(io.lines.join('\n')).toMatch(
      new RegExp(
        `^conformance: (2 of 2 scenarios pass|\\d of 2 scenarios pass .*\\(${starved} fail, \\d inconclusive\\))`,
        'm',
      ),
    );
    expect(io.lines).toContain('→ conformance-hanging-provider (seed 5)');
    const junit = await readFile(join(out, 'junit.xml'), 'utf8');
    expect(junit.match(/<testsuite /g)).toHaveLength(2);
    if (starved === 0) expect(junit).not.toContain('<failure');
  }, 120_000);
});

it('records the package version in reports', async () => {
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  expect(TOOL_VERSION).toBe(pkg.version);
});
