import {
  createScenarioParser,
  loadScenarioFile,
  SCENARIO_RULES,
  type LoadScenarioResult,
  type Rule,
  type ScenarioParser,
} from '../../simulator/scenario-index.js';
import { FLEET_RULES, worldView } from '../fleet/fleet-spec.js';
import { RUN_RULES } from './rules.js';
import { RunScenarioSchema, type RunScenario } from './schema.js';

// The simulator's rules see only the faults it plays, each where it sits in the file.
const WORLD_RULES: ReadonlyArray<Rule<RunScenario>> = (SCENARIO_RULES as ReadonlyArray<Rule<RunScenario>>).map(
  (rule) => (s, ctx, push) => rule(worldView(s), ctx, push),
);

/** Parses a whole scenario file (world and run sections), every problem located. */
export const parseRunScenario: ScenarioParser<RunScenario> = createScenarioParser(RunScenarioSchema, [
  ...WORLD_RULES,
  ...RUN_RULES,
  ...(FLEET_RULES as ReadonlyArray<Rule<RunScenario>>),
]);

/** Reads and validates a whole scenario file; a missing file is reported like any other problem. */
export function loadRunScenarioFile(
  file: string,
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<LoadScenarioResult<RunScenario>> {
  return loadScenarioFile(file, env, parseRunScenario);
}
