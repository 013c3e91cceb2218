import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  loadRunScenarioFile,
  runSimulatedScenario,
  type CheckResult,
  type RunScenario,
  type SimulatedRouterLauncher,
} from '../../harness/index.js';

const PACK = join(import.meta.dirname, '../../scenarios/conformance');
const FIXTURES = join(import.meta.dirname, '../fixtures/harness');

/** A pack scenario's file by name (`03-all-exhausted`), or else a fixture scenario's (`429-burst`). */
export function scenarioFile(name: string): string {
  const pack = join(PACK, `${name}.yaml`);
  return existsSync(pack) ? pack : join(FIXTURES, `${name}.yaml`);
}

/** Runs a scenario in simulated time against `launcher` at `seed` (the scenario's own by default); its checks. */
export async function judgeScenario(
  name: string,
  launcher: (scenario: RunScenario) => SimulatedRouterLauncher,
  seed?: number,
): Promise<CheckResult[]> {
  return judgeFile(scenarioFile(name), launcher, seed);
}

/** `judgeScenario` for a scenario file by its path (a saved regression, say). */
export async function judgeFile(
  file: string,
  launcher: (scenario: RunScenario) => SimulatedRouterLauncher,
  seed?: number,
): Promise<CheckResult[]> {
  const loaded = await loadRunScenarioFile(file, {});
  if (!loaded.ok) throw new Error(loaded.report);
  const data = await runSimulatedScenario({
    scenario: loaded.scenario,
    scenarioText: loaded.text,
    scenarioFile: file,
    seed: seed ?? loaded.scenario.seed ?? 1,
    launcher: launcher(loaded.scenario),
  });
  return data.checks;
}

/** `id verdict: figure`, one line per check: the message of a failed expectation. */
export function digestChecks(checks: readonly CheckResult[]): string {
  return checks.map((c) => `${c.id} ${c.verdict}: ${c.figure}${c.reason ? ` (${c.reason})` : ''}`).join('\n');
}
