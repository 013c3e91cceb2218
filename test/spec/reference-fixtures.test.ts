// The reference router passes every scenario the broken routers fail (test/fixtures/harness), in
// simulated time: what it proves is a verdict, which does not depend on the wall clock. Each broken
// router fails its scenario in simulated time too (harness-broken-routers.test.ts, the same naive
// core as the HTTP fixture); one of these runs stays on the wall clock (harness-reference.test.ts),
// for the sockets and timers.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { simulatedReferenceLauncher } from '../../bin/reference-launcher.js';
import { loadRunScenarioFile, runSimulatedScenario } from '../../harness/index.js';
import { digestChecks } from './judge-pack.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/harness');
const fixtures = (await readdir(FIXTURES)).filter((f) => f.endsWith('.yaml')).sort();

describe("the reference router against the broken routers' scenarios, in simulated time", () => {
  it.each(fixtures)('passes %s', async (file) => {
    const loaded = await loadRunScenarioFile(join(FIXTURES, file), {});
    if (!loaded.ok) throw new Error(loaded.report);
    const run = await runSimulatedScenario({
      scenario: loaded.scenario,
      scenarioText: loaded.text,
      scenarioFile: join(FIXTURES, file),
      seed: loaded.scenario.seed ?? 1,
      launcher: simulatedReferenceLauncher(loaded.scenario),
    });
    expect(
      run.checks.filter((c) => c.verdict === 'fail' || c.verdict === 'inconclusive').map((c) => c.id),
      digestChecks(run.checks),
    ).toEqual([]);
    // The run really exercised the router: every request got an answer and the ledger saw them.
    expect(run.outcomes.length).toBeGreaterThan(50);
    expect(run.outcomes.every((o) => o.status !== 0)).toBe(true);
    expect(run.rows.length).toBeGreaterThanOrEqual(run.outcomes.length);
  });
});
