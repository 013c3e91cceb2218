import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunScenarioFile, runSimulatedScenario } from '../../harness/index.js';
import { BROKEN_ROUTERS } from '../fixtures/routers/broken-routers.js';
import type { Flaws } from '../fixtures/routers/naive-router-core.js';
import { simulatedNaiveLauncher } from '../fixtures/routers/simulated-naive-router.js';
import { digest, failed, HARNESS_FIXTURES } from '../helpers/harness.js';

// Each broken router has exactly one defect; the checks it breaks must fail and every other check
// must hold, so that a verdict points at the defect and nothing else. The reference router passes
// the same scenarios in test/spec/reference-fixtures.test.ts. Both run in simulated time: what
// is judged is a verdict on the router's behaviour (counts, keys, content, and timing margins of
// the scenario's clock), not the wall clock, so a busy machine cannot move a margin. The broken
// routers are the same core as the HTTP ones (naive-router-core.ts), which the wall-clock tests
// of the CLI and the reports still run as processes.
async function judge(scenario: string, flaws: Flaws, name: string) {
  const file = join(HARNESS_FIXTURES, scenario);
  const loaded = await loadRunScenarioFile(file, {});
  if (!loaded.ok) throw new Error(loaded.report);
  return runSimulatedScenario({
    scenario: loaded.scenario,
    scenarioText: loaded.text,
    scenarioFile: file,
    seed: loaded.scenario.seed ?? 1,
    launcher: simulatedNaiveLauncher(flaws, name),
  });
}

describe('broken routers fail exactly the checks they break (simulated time)', () => {
  it.each(Object.entries(BROKEN_ROUTERS))('%s', async (name, broken) => {
    const run = await judge(broken.scenario, broken.flaws, name);
    expect(failed(run.checks), `${broken.why}\n${digest(run.checks)}`).toEqual(broken.breaks);
    for (const id of broken.breaks) expect(run.checks.find((c) => c.id === id)!.evidence.length).toBeGreaterThan(0);
  });

  // The baseline they deviate from: without its flaw, each scenario's failures are gone.
  const scenarios = [...new Set(Object.values(BROKEN_ROUTERS).map((b) => b.scenario))].sort();
  it.each(scenarios)('the naive router without a flaw fails no check of %s', async (scenario) => {
    const run = await judge(scenario, {}, 'naive');
    expect(failed(run.checks), digest(run.checks)).toEqual([]);
  });
});
