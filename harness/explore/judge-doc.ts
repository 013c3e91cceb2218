import type { CheckResult } from '../checks/types.js';
import { HarnessError } from '../errors.js';
import { parseRunScenario } from '../scenario/parse-run-scenario.js';
import type { RunScenario } from '../scenario/schema.js';
import { runSimulatedScenario, type SimulatedRouterLauncher } from '../sim/run-simulated.js';
import type { ScenarioDoc } from './scenario-doc.js';

/** Runs a scenario doc at `seed` in simulated time against the router `launcher` starts; its checks. */
export async function judgeDoc(
  doc: ScenarioDoc,
  seed: number,
  launcher: (scenario: RunScenario) => SimulatedRouterLauncher,
): Promise<CheckResult[]> {
  const text = JSON.stringify(doc);
  const parsed = parseRunScenario(text);
  if (!parsed.ok)
    throw new HarnessError(
      'HARNESS_SCENARIO_INVALID',
      `Failed to judge scenario "${doc.name}": ${parsed.issues.map((i) => i.message).join('; ')}`,
    );
  const data = await runSimulatedScenario({
    scenario: parsed.scenario,
    scenarioText: text,
    scenarioFile: `${doc.name}.yaml`,
    seed,
    launcher: launcher(parsed.scenario),
  });
  return data.checks;
}
