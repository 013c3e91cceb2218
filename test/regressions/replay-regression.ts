import { readFileSync } from 'node:fs';
import { loadRunScenarioFile, runSimulatedScenario, type CheckResult } from '../../harness/index.js';
import { readExpectations, type RegressionExpectation } from '../../harness/explore/regression-expectations.js';
import { REGRESSION_ROUTERS } from './routers.js';

/** One expectation of a saved regression, replayed: the verdict its router now gets on the check. */
export interface Replayed {
  expectation: RegressionExpectation;
  check: CheckResult | undefined;
}

/** The expectations a saved regression's header records. */
export function expectationsOf(file: string): RegressionExpectation[] {
  return readExpectations(readFileSync(file, 'utf8'));
}

/** Replays a saved regression in simulated time at its own seed for the router `e` names. */
export async function replayRegression(file: string, e: RegressionExpectation): Promise<Replayed> {
  const launcher = REGRESSION_ROUTERS[e.router];
  if (!launcher) throw new Error(`Failed to replay ${file}: no router "${e.router}" in test/regressions/routers.ts.`);
  const loaded = await loadRunScenarioFile(file, {});
  if (!loaded.ok) throw new Error(loaded.report);
  const data = await runSimulatedScenario({
    scenario: loaded.scenario,
    scenarioText: loaded.text,
    scenarioFile: file,
    seed: loaded.scenario.seed ?? 1,
    launcher: launcher(loaded.scenario),
  });
  return { expectation: e, check: data.checks.find((c) => c.id === e.checkId) };
}
