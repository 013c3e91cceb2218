/**
 * @module throttlelab simulator, scenario part: the scenario schema, rules and parser alone (yaml and
 * zod), without the engine, the transports (msw, undici) or the tokenizer, for what only reads
 * scenario files (`throttlelab validate`, the harness's scenario parser), and the control API's
 * path prefix for its clients (`throttlelab fault`). `index.ts` re-exports it.
 */
export { CONTROL_PREFIX } from './core/control-prefix.js';
export { formatPath } from './scenario/issue.js';
export type { Rule, RuleContext, RuleIssue } from './scenario/rules.js';
export { RULES as SCENARIO_RULES } from './scenario/rules.js';
export {
  parseScenario,
  createScenarioParser,
  type ParseScenarioResult,
  type ScenarioParser,
} from './scenario/parse-scenario.js';
export { loadScenarioFile, type LoadScenarioResult } from './scenario/load-scenario-file.js';
export {
  ScenarioSchema,
  SCENARIO_WORLD_SHAPE,
  FaultSchema,
  Duration,
  NonNegativeDuration,
  PositiveDuration,
  durationWithin,
  CountDist,
  boundedCountDist,
  MAX_COMPLETION_TOKENS,
  type Scenario,
  type FaultSpec,
  type ProviderSpec,
  type Dist,
} from './scenario/schema.js';
