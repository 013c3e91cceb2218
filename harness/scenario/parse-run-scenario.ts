import {
  createScenarioParser,
  loadScenarioFile,
  SCENARIO_RULES,
  type LoadScenarioResult,
  type Rule,
  type ScenarioParser,
} from '../../simulator/index.js';
import { RUN_RULES } from './rules.js';
import { RunScenarioSchema, type RunScenario } from './schema.js';

/** Parses a whole scenario file (world and run sections), every problem located. */
export const parseRunScenario: ScenarioParser<RunScenario> = createScenarioParser(RunScenarioSchema, [
  ...(SCENARIO_RULES as ReadonlyArray<Rule<RunScenario>>),
  ...RUN_RULES,
]);

/** Reads and validates a whole scenario file; a missing file is reported like any other problem. */
export function loadRunScenarioFile(
  file: string,
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<LoadScenarioResult<RunScenario>> {
  return loadScenarioFile(file, env, parseRunScenario);
}
