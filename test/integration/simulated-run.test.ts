import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildReport,
  faultCoverage,
  loadRunScenarioFile,
  runSimulatedScenario,
  type SimulatedRouterLauncher,
} from '../../harness/index.js';
import { simulatedReferenceLauncher } from '../../bin/reference-launcher.js';
import { wallClockNote } from '../../bin/commands/run-simulated.js';
import { cli } from '../helpers/cli.js';
import { judgeRun } from '../../harness/judge-run.js';
import type { LedgerRow } from '../../simulator/index.js';
import { readSpec } from '../spec/read-spec.js';

const PACK = join(import.meta.dirname, '../../scenarios/conformance');
const SPEC = readSpec();
const dirs: string[] = [];
const tmp = async () => {
  const d = await mkdtemp(join(tmpdir(), 'tl-sim-'));
  dirs.push(d);
  return d;
};
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function simulate(file: string, launcher?: SimulatedRouterLauncher) {
  const loaded = await loadRunScenarioFile(file, {});
  if (!loaded.ok) throw new Error(loaded.report);
  const data = await runSimulatedScenario({
    scenario: loaded.scenario,
    scenarioText: loaded.text,
    scenarioFile: file,
    seed: loaded.scenario.seed ?? 1,
    launcher: launcher ?? simulatedReferenceLauncher(loaded.scenario),
  });
  return {
    data,
    report: JSON.stringify(buildReport(data)),
    ledger: data.rows.map((r) => JSON.stringify(r)).join('\n'),
  };
}

describe('simulated time (the reference router in process, one discrete-event clock)', () => {
  it('plays the conformance pack twice with byte-identical reports and ledgers, no scenario failing', async () => {
    const files = (await readdir(PACK)).filter((f) => f.endsWith('.yaml')).sort();
    expect(files.length).toBeGreaterThanOrEqual(11);
    for (const f of files) {
      const first = await simulate(join(PACK, f));
      const second = await simulate(join(PACK, f));
      expect(second.report, f).toBe(first.report);
      expect(second.ledger, f).toBe(first.ledger);
      const failed = first.data.checks.filter((c) => c.verdict === 'fail').map((c) => `${c.id}: ${c.figure}`);
      expect(failed, f).toEqual([]);
      // Every fault reached the router: one that matched nothing would have checked nothing.
      const unmatched = faultCoverage(first.data.scenario, first.data.rows).filter((c) => c.matched === 0);
      expect(
        unmatched.map((c) => c.id),
        f,
      ).toEqual([]);
      expect(first.data.verdict, f).toBe('pass');
      // Where this scenario forces a clause of docs/spec.md, its check judged the reference and passed (not SKIP).
      for (const c of SPEC.filter((c) => `${c.forcedBy}.yaml` === f))
        expect(first.data.checks.find((r) => r.id === c.judgedBy)?.verdict, `${f}: ${c.id} (${c.judgedBy})`).toBe(
          'pass',
        );
      // The load ran to its end in simulated time, whatever the wall clock did.
      expect(first.data.loadEndedAt - first.data.loadStartedAt, f).toBeGreaterThanOrEqual(
        first.data.scenario.load!.duration - 1000,
      );
    }
  }, 240_000);

  it('judges from ledger views exactly as from row objects (same checks, coverage and report)', async () => {
    for (const file of [join(PACK, '09-mid-stream-errors.yaml'), join(PACK, '06-lying-hints.yaml')]) {
      const { data, report } = await simulate(file);
      const objects = data.rows.map((r) => JSON.parse(JSON.stringify(r)) as LedgerRow);
      expect(Object.getPrototypeOf(data.rows[0])).not.toBe(Object.prototype);
      const again = judgeRun({
        ...data,
        scenarioText: await loadRunScenarioFile(file, {}).then((l) => (l.ok ? l.text : '')),
        rows: objects,
        interrupted: false,
      });
      expect(JSON.stringify(buildReport({ ...again, startedAt: data.startedAt }))).toBe(report);
    }
  }, 60_000);

  it('answers the same through the fetch handler as through the direct call (streams and failovers included)', async () => {
    const file = join(PACK, '09-mid-stream-errors.yaml');
    const loaded = await loadRunScenarioFile(file, {});
    if (!loaded.ok) throw new Error(loaded.report);
    const reference = simulatedReferenceLauncher(loaded.scenario);
    const fetchOnly: SimulatedRouterLauncher = async (ctx) => ({ ...(await reference(ctx)), direct: undefined });
    const [direct, viaFetch] = [await simulate(file), await simulate(file, fetchOnly)];
    expect(viaFetch.data.outcomes.filter((o) => o.stream).length).toBeGreaterThan(10);
    expect(viaFetch.report).toBe(direct.report);
    expect(viaFetch.ledger).toBe(direct.ledger);
  }, 120_000);

  it("shows a daily wall and its reset at the vendor's midnight on the report's timeline (9 h simulated)", async () => {
    const { data, report } = await simulate(join(import.meta.dirname, '../fixtures/simulated/daily-wall-reset.yaml'));
    const gemini = JSON.parse(report).series.providers.find((p: { id: string }) => p.id === 'gemini');
    // Midnight Pacific is 08:00 UTC: 28 800 s after the load's start (its first request goes at +20 ms).
    const walls = (gemini.windows as Array<[number, number, number]>).filter(([from, to]) => to - from > 3600);
    expect(walls.length).toBeGreaterThan(0);
    expect(walls.some(([, to]) => Math.abs(to - 28_800) < 1)).toBe(true);
    const t = (at: number) => (at - data.loadStartedAt) / 1000;
    const served = data.rows.filter((r) => r.provider === 'gemini' && r.status === 200).map((r) => t(r.arrivalAt));
    expect(served.filter((s) => s < 28_800)).toHaveLength(100);
    expect(served.some((s) => s > 28_800)).toBe(true);
    expect(data.checks.find((c) => c.id === 'no-429')?.verdict).toBe('pass');
    // What only a long simulated run shows: the wall announces a wait of hours, and the reference
    // router honours it (breaker.maxOpenFor, 25 h, guards only against absurd hints): no probe
    // before the reset, so retry-after passes.
    const walled = data.rows.filter((r) => r.provider === 'gemini' && r.status === 429).map((r) => t(r.arrivalAt));
    expect(walled.length).toBeGreaterThan(0);
    expect(walled.every((w) => w < 28_800)).toBe(true);
    const after = data.rows.filter((r) => r.provider === 'gemini' && t(r.arrivalAt) > walled.at(-1)!);
    expect(after.length).toBeGreaterThan(0);
    expect(t(after[0]!.arrivalAt)).toBeGreaterThanOrEqual(28_800);
    const retryAfter = data.checks.find((c) => c.id === 'retry-after')!;
    expect(retryAfter.verdict, `${retryAfter.figure} ${retryAfter.reason ?? ''}`).toBe('pass');
  }, 120_000);

  it('stops sending when the user stops the run, and judges what was answered as interrupted', async () => {
    const file = join(PACK, '02-429-hint-forms.yaml');
    const loaded = await loadRunScenarioFile(file, {});
    if (!loaded.ok) throw new Error(loaded.report);
    const stop = new AbortController();
    const reference = simulatedReferenceLauncher(loaded.scenario);
    let seen = 0;
    const stopsAt10: SimulatedRouterLauncher = async (ctx) => {
      const r = await reference(ctx);
      return {
        ...r,
        direct: async (call) => {
          if (++seen === 10) stop.abort();
          return r.direct!(call);
        },
      };
    };
    const data = await runSimulatedScenario({
      scenario: loaded.scenario,
      scenarioText: loaded.text,
      scenarioFile: file,
      seed: 2,
      launcher: stopsAt10,
      signal: stop.signal,
    });
    expect(data.verdict).toBe('interrupted');
    expect(data.interrupted).toBe(true);
    expect(seen).toBe(10);
    expect(data.outcomes.length + data.dropped).toBe(10);
    expect(data.dropped).toBeGreaterThan(0);
  }, 60_000);

  it('judges a stopped run in a moment however long replaying its quotas would take', async () => {
    // 50,000 requests a second against one a millisecond: each waiting request comes back to the
    // quota oracle every millisecond of its 10 s deadline, minutes of synchronous replay.
    const file = join(import.meta.dirname, '../fixtures/signals/big-simulated.yaml');
    const loaded = await loadRunScenarioFile(file, {});
    if (!loaded.ok) throw new Error(loaded.report);
    const stop = new AbortController();
    const reference = simulatedReferenceLauncher(loaded.scenario);
    let seen = 0;
    let asked = 0;
    const stopsAt3000: SimulatedRouterLauncher = async (ctx) => {
      const r = await reference(ctx);
      return {
        ...r,
        direct: async (call) => {
          if (++seen === 3000) stop.abort();
          return r.direct!(call);
        },
      };
    };
    const data = await runSimulatedScenario({
      scenario: loaded.scenario,
      scenarioText: loaded.text,
      scenarioFile: file,
      seed: 9,
      launcher: stopsAt3000,
      signal: stop.signal,
      // Asked after each check and each slice of the oracle's replay: the seven checks before
      // goodput are judged, then its replay is cut at its first slice, and the checks after it
      // are not judged.
      giveUpJudging: () => stop.signal.aborted && ++asked > 7,
    });
    expect(data.verdict).toBe('interrupted');
    const goodput = data.checks.find((c) => c.id === 'goodput')!;
    expect(goodput.details).toMatchObject({ servableByQuotaCut: true });
    expect(goodput.verdict).not.toBe('fail');
    const after = data.checks.slice(data.checks.indexOf(goodput) + 1);
    expect(after.length).toBeGreaterThan(0);
    for (const c of after)
      expect(c).toMatchObject({ verdict: 'inconclusive', reason: expect.stringMatching(/^not judged: /) });
  }, 60_000);

  it('fails a router that hands every client a 429 (the checks judge in simulated time too)', async () => {
    const passes429: SimulatedRouterLauncher = () => ({
      description: 'always 429',
      handler: async () =>
        new Response(JSON.stringify({ error: { message: 'slow down', type: 'rate_limit', code: null } }), {
          status: 429,
          headers: { 'content-type': 'application/json', 'retry-after': '1' },
        }),
      stop: async () => {},
    });
    const { data } = await simulate(join(PACK, '02-429-hint-forms.yaml'), passes429);
    expect(data.checks.find((c) => c.id === 'no-429')?.verdict).toBe('fail');
    expect(data.verdict).toBe('fail');
    expect(data.outcomes.every((o) => o.status === 429)).toBe(true);
    expect(data.rows).toHaveLength(0);
  }, 60_000);

  // Run once: that the same run gives the same bytes is the first test's (in process, twice) and
  // simulated-golden's (the CLI, pinned digests); a second pack run here only cost the suite time.
  it('runs `throttlelab conform --time simulated` over the pack: every scenario passes (exit 0)', async () => {
    const a = await tmp();
    const one = await cli(['conform', '--time', 'simulated', '--only', '0', '--out', a]);
    expect(one.code, one.err.join('\n')).toBe(0);
    expect(one.err.filter((l) => l.includes('simulated ')).length).toBeGreaterThan(5);
    expect(await readFile(join(a, 'report.json'), 'utf8')).toContain('simulated time');
  }, 240_000);

  it('judges fault coverage as on the wall clock: a fault that met no attempt makes the run inconclusive (exit 3)', async () => {
    const file = join(import.meta.dirname, '../fixtures/simulated/unmatched-fault.yaml');
    const { data } = await simulate(file);
    expect(data.faults).toEqual([
      expect.objectContaining({ id: 'openai-slow', matched: expect.any(Number) }),
      expect.objectContaining({ id: 'anthropic-outage', matched: 0 }),
    ]);
    expect(data.faults![0]!.matched).toBeGreaterThan(0);
    expect(data.checks.filter((c) => c.verdict === 'fail')).toEqual([]);
    expect(data.verdict).toBe('inconclusive');
    expect(data.inconclusive).toEqual([expect.stringMatching(/^fault "anthropic-outage" .* matched no attempt/)]);
    const out = await tmp();
    const r = await cli(['run', file, '--time', 'simulated', '--out', out]);
    expect(r.code).toBe(3);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
    expect(report.verdict).toBe('inconclusive');
    // The same evidence files as a wall-clock run, the ledger byte for byte the run's.
    const ledger = await readFile(join(out, 'ledger.jsonl'), 'utf8');
    expect(ledger).toBe(data.rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    expect((await readFile(join(out, 'outcomes.jsonl'), 'utf8')).split('\n')).toHaveLength(data.outcomes.length + 1);
  }, 60_000);

  it('refuses a day of load on the wall clock, pointing at --time simulated (exit 2, located)', async () => {
    const r = await cli(['run', 'scenarios/day-in-the-life.yaml', '--router-url', 'http://127.0.0.1:9/v1']);
    expect(r.code).toBe(2);
    expect(r.err.join('\n')).toMatch(
      /^scenarios\/day-in-the-life\.yaml:\d+:\d+ SCENARIO_OUT_OF_RANGE load\.duration: a run on the wall clock is bounded to 10 minutes of load; run it with --time simulated/m,
    );
  });

  it('says in one line why a router in another process runs on the wall clock', async () => {
    const loaded = await loadRunScenarioFile(join(PACK, '01-steady-state.yaml'), {});
    if (!loaded.ok) throw new Error(loaded.report);
    expect(wallClockNote(loaded.scenario, {})).toBeUndefined();
    const note = wallClockNote(loaded.scenario, { routerUrl: 'http://127.0.0.1:9/v1' });
    expect(note).toMatch(/^note: --time simulated needs the router in this process .*: running on the wall clock$/);
    expect(note).not.toContain('\n');
    expect(wallClockNote(loaded.scenario, { routerCmd: 'litellm' })).toContain('a command');
  });
});
