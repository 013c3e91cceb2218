/** @module throttlelab simulator: vendor-faithful mock LLM providers, scenarios and the attempt ledger. */
export type { Clock } from './core/clock.js';
export { Cancel, type AbortLike } from './core/cancel.js';
export { systemClock } from './transports/system-clock.js';
export { createFakeClock, type FakeClock } from './core/fake-clock.js';
export { createRng, deriveSeed, type Rng } from './core/rng.js';
export { parseDuration, formatDurationShort, MAX_WAIT_MS } from './core/duration.js';
export { SimError, isSimError, type SimErrorCode } from './core/errors.js';
export { CORRELATION_HEADER, CORRELATION_MARKER_RE, formatCorrelationMarker } from './engine/correlation.js';
export type { Reply, Step, ReplyOutcome } from './engine/reply.js';
export { playReply, type ReplySink } from './engine/play-reply.js';
export { sample } from './engine/sample.js';
export {
  requestFacts,
  formatRequestFacts,
  shapeOfVendor,
  type RequestFacts,
  type RequestShape,
} from './engine/request-facts.js';
export { ContentDigest, contentDigest, formatDigest } from './core/content-digest.js';
export { createVocabulary, generateText, generateTokens, type Vocabulary } from './engine/vocabulary.js';
export { createProviderRuntime, type ProviderRuntime } from './engine/provider-runtime.js';
export { cachePolicyFor, type CachePolicy } from './engine/prompt-cache.js';
export type { Costs } from './quota/quota-set.js';
export { Ledger, type LedgerQuery, type LedgerSink } from './ledger/ledger.js';
export type { LedgerRow, AttemptEnd } from './ledger/ledger-row.js';
export {
  SCENARIO_RULES,
  parseScenario,
  createScenarioParser,
  loadScenarioFile,
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
  CONTROL_PREFIX,
  type Rule,
  type RuleContext,
  type RuleIssue,
  type ParseScenarioResult,
  type ScenarioParser,
  type LoadScenarioResult,
  type Scenario,
  type FaultSpec,
  type ProviderSpec,
  type Dist,
} from './scenario-index.js';
export { formatIssues, formatPath, type ScenarioIssue } from './scenario/issue.js';
export { locateInYaml } from './scenario/locate.js';
export { readYaml, MAX_YAML_BYTES, type YamlRead } from './scenario/read-yaml.js';
export { readTextFile, decodeText, type TextFileRead } from './scenario/read-text-file.js';
export {
  createSimulator,
  type Simulator,
  type SimulatorOptions,
  type ProviderEndpoint,
  type FaultInfo,
} from './simulator.js';
export { startLoopLagMonitor, type LoopLag, type LoopLagMonitor } from './transports/loop-lag.js';
export { recordLoopStalls, type LoopStallRecorder, type LoopStalls } from './transports/loop-stalls.js';
export { startSimulatorServer, type SimulatorServer, type SimulatorServerOptions } from './transports/http-server.js';
export { generateTlsIdentity, type TlsIdentity } from './transports/tls-identity.js';
export { createMswHandlers } from './transports/msw-handlers.js';
export { createUndiciDispatcher } from './transports/undici-dispatcher.js';
export { VENDORS, VENDOR_IDS } from './vendors/registry.js';
export type { VendorId, SimRequest, HintForm } from './vendors/types.js';
export { upstreamMarks, type UpstreamMark } from './vendors/upstream-marks.js';
export { SharedQuota, type QuotaScriptRunner, type DegradedWindow } from './quota/shared-quota.js';
export { connectRedisQuota, type RedisQuotaRunner } from './transports/redis-quota-runner.js';
export { groupEpochMarkers } from './engine/group-epoch-markers.js';
export { appendRow } from './ledger/append-row.js';
export { degradedSpans, type DegradedSpan } from './ledger/degraded-spans.js';
export { LedgerStreamTally, type StreamShortfall } from './ledger/stream-tally.js';
export { isGroupWorker } from './ledger/parse-ledger-entry.js';
export {
  followLedgerStream,
  openLedgerStream,
  publishLedgerStream,
  type LedgerStreamEntry,
} from './transports/redis-ledger-stream.js';
export { connectFaultSync, faultKeys, type FaultSync } from './transports/redis-fault-sync.js';
