/** @module throttlelab harness: runs a scenario against any router under load and judges it from the ledger. */
export { HarnessError, isHarnessError, type HarnessErrorCode } from './errors.js';
export {
  RunScenarioSchema,
  CHECK_IDS,
  WALL_CLOCK_MAX_LOAD_MS,
  type RunScenario,
  type CheckId,
  type LoadSpec,
  type ExpectSpec,
  type RouterSpec,
} from './scenario/schema.js';
export { parseRunScenario, loadRunScenarioFile } from './scenario-index.js';
export { runScenario, type RunOptions } from './run-scenario.js';
export type { RunData } from './run-data.js';
export { faultCoverage } from './judge-run.js';
export { judgeDeadline } from './judge-deadline.js';
export {
  runSimulatedScenario,
  SIM_ORIGIN,
  type SimulatedRunOptions,
  type SimulatedProgress,
  type SimulatedRunData,
  type SimulatedLaunchContext,
  type SimulatedRouter,
  type SimulatedRouterLauncher,
} from './sim/run-simulated.js';
export { createSimClock, SIMULATED_EPOCH, type SimClock, type EventSource } from './sim/sim-clock.js';
export { drive } from './sim/drive.js';
export { runSimulatedLoad, SIM_ROUTER_BASE, type FetchHandler, type DirectHandler } from './sim/sim-load.js';
export type { RouterLauncher, RouterLaunch, LaunchContext, FleetContext } from './launch/launcher.js';
export {
  providerEnv,
  envName,
  providerVar,
  keyVar,
  routerVariableNames,
  ROUTER_PORT_VAR,
  ROUTER_REPLICA_VAR,
  REDIS_URL_VAR,
  REFERENCE_CONFIG_VAR,
} from './launch/provider-env.js';
export { launchFleet } from './fleet/launch-fleet.js';
export { isFleet, type ExternalRedis, type FleetSummary } from './fleet/fleet-run.js';
export { startRedisServer, type RedisServer } from './fleet/redis-server.js';
export type { RedisFaultRecord } from './fleet/redis-faults.js';
export { launchCommand, freePort } from './launch/launch-command.js';
export { launchUrl } from './launch/launch-url.js';
export { redactCommand, secretValues } from './launch/redact-secrets.js';
export type { LoadProgress } from './load/open-loop.js';
export type { ClientOutcome } from './load/client-outcome.js';
export { runChecks, overallVerdict } from './checks/run-checks.js';
export type { CheckResult, CheckInput, Evidence } from './checks/types.js';
export { buildReport } from './report/build-report.js';
export type { EvidenceKept, Report } from './report/report.js';
export { renderVerdictTable, renderMarkdown, renderJunit } from './report/render-text.js';
export { renderHtml } from './report/render-html.js';
export { writeReportFolder, reportsOf } from './report/write-report.js';
export { TOOL_VERSION } from './version.js';
export {
  judgeInProcess,
  type JudgeInProcessOptions,
  type InProcessContext,
  type FetchTarget,
} from './sim/judge-in-process.js';
export { installFakeTimersClock, type FakeTimersClock } from './sim/fake-timers-clock.js';
export {
  compareReports,
  attemptsPerRequest,
  okShare,
  VERDICT_RANK,
  DEFAULT_TOLERANCE,
  type Comparison,
  type CompareVerdict,
  type CompareTolerance,
  type ScenarioChange,
  type CheckChange,
  type FigureChange,
} from './report/compare-reports.js';
export { renderCompareTable, renderCompareMarkdown, renderCompareHtml } from './report/render-compare.js';
export { installPortkey, PORTKEY_VERSION, PORTKEY_PINS, type PortkeyInstall } from './peers/install-portkey.js';
export { portkeyConfig, portkeyScenario, PORTKEY_PROVIDERS } from './peers/portkey-config.js';
export { runPortkeyScenario } from './peers/run-portkey.js';
export {
  installLlmGateway,
  LLM_GATEWAY_VERSION,
  LLM_GATEWAY_PINS,
  type LlmGatewayInstall,
} from './peers/install-llm-gateway.js';
export { llmGatewayConfig, llmGatewayScenario, LLM_GATEWAY_PROVIDERS } from './peers/llm-gateway-config.js';
export { runLlmGatewayScenario } from './peers/run-llm-gateway.js';
export {
  clauseVerdicts,
  forcingScenarios,
  ledgerLines,
  type ClauseVerdict,
  type JudgedCheck,
} from './peers/clause-table.js';
export { CLAUSES, clausesOf, type Clause } from './spec/clauses.js';
// Exploring seeds (issue 22): weather drawn from the seed, shrinking a failure, keeping it as a regression.
export { randomWeather, drawWeather, type DrawnWeather } from './explore/weather.js';
export { WEATHER_BOUNDS, WEATHER_KINDS } from './explore/weather-grammar.js';
export { shrinkFailure, type ShrinkJudge, type ShrinkOptions, type ShrinkResult } from './explore/shrink.js';
export { saveRegression, type Regression } from './explore/save-regression.js';
export { readExpectations, type RegressionExpectation } from './explore/regression-expectations.js';
export { judgeDoc } from './explore/judge-doc.js';
export type { ScenarioDoc } from './explore/scenario-doc.js';
export { parseSeedRange, formatSeedRange, MAX_SEEDS } from './explore/seed-range.js';
export type { SeedRun, SeedJob, SeedCheck } from './explore/seed-run.js';
export { aggregateRuns, type ExploreSummary, type ScenarioTally } from './explore/aggregate-runs.js';
export { runPool, MAX_POOL_WORKERS, type PoolWorker, type PoolOutcome } from './explore/run-pool.js';
export { renderExploreText } from './explore/render-explore-text.js';
export { renderExploreHtml } from './explore/render-explore-html.js';
export { seedVerdicts, type SeedVerdict } from './explore/seed-verdicts.js';
export { openLoadGroup, mergeLoadResults, type LoadGroup, type LoadGroupResult } from './load/open-load-group.js';
export { joinLoadGroup, type JoinOptions } from './load/join-load-group.js';
export type { LoadJob, LoadWorkerResult, LoadWorkerSummary } from './load/load-group-keys.js';
export type { SplitLoad } from './run-scenario.js';
