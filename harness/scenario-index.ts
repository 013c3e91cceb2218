/**
 * @module throttlelab harness, scenario part: reads and validates a whole scenario file (world,
 * load, checks, fleet) with the parser alone, without the runner, the checks or the reports, for
 * `throttlelab validate`'s cold start. `index.ts` re-exports it.
 */
export { parseRunScenario, loadRunScenarioFile } from './scenario/parse-run-scenario.js';
export type { RunScenario } from './scenario/schema.js';
