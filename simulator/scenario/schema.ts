import { z } from 'zod';
import { parseDuration } from '../core/duration.js';
import { VENDOR_IDS } from '../vendors/registry.js';

/** A duration in YAML (`250ms`, `5s`, `1m30s`, `3d`, or a number of ms), parsed to milliseconds. */
export const Duration = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const ms = parseDuration(value);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: `expected a duration such as 250ms, 5s or 1m30s, got ${JSON.stringify(value)}`, params: { code: 'SCENARIO_INVALID_DURATION' } });
    return z.NEVER;
  }
  return ms;
});

const NonNegativeDuration = Duration.refine((ms) => ms >= 0, { message: 'expected a duration of zero or more', params: { code: 'SCENARIO_OUT_OF_RANGE' } });
const PositiveDuration = Duration.refine((ms) => ms > 0, { message: 'expected a duration greater than zero', params: { code: 'SCENARIO_OUT_OF_RANGE' } });

const Id = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, { error: 'expected an id of lower-case letters, digits, "-" or "_" (at most 64 characters)' });

/** A random distribution of a number (ms for latencies, tokens, tokens per second). */
export type Dist =
  | { dist: 'fixed'; value: number }
  | { dist: 'uniform'; min: number; max: number }
  | { dist: 'normal'; mean: number; sd: number }
  | { dist: 'lognormal'; median: number; p99: number };

function distOf(value: z.ZodType<number, unknown>) {
  return z.union([
    value.transform((v): Dist => ({ dist: 'fixed', value: v })),
    z.strictObject({ dist: z.literal('fixed'), value }),
    z.strictObject({ dist: z.literal('uniform'), min: value, max: value }),
    z.strictObject({ dist: z.literal('normal'), mean: value, sd: value }),
    z.strictObject({ dist: z.literal('lognormal'), median: value, p99: value }),
  ]) as unknown as z.ZodType<Dist, unknown>;
}

const MsDist = distOf(NonNegativeDuration as unknown as z.ZodType<number, unknown>);
const CountDist = distOf(z.number().nonnegative() as unknown as z.ZodType<number, unknown>);

const Latency = z.strictObject({
  /** Time to first token (or to the whole answer's start when not streaming). */
  ttft: MsDist.optional(),
  tokensPerSecond: CountDist.optional(),
  completionTokens: CountDist.optional(),
  tokensPerFrame: z.number().int().positive().optional(),
  /** How long error answers take. */
  errorDelay: NonNegativeDuration.optional(),
});

const Key = z.strictObject({
  id: Id,
  value: z.string().min(1).optional(),
  env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'expected an environment variable name' }).optional(),
  org: Id.optional(),
});

const Quota = z.strictObject({
  metric: z.enum(['requests', 'tokens', 'input-tokens', 'output-tokens', 'concurrency']),
  limit: z.number().int().positive(),
  per: PositiveDuration.optional(),
  algorithm: z.enum(['token-bucket', 'fixed-window', 'sliding-window']).optional(),
  scope: z.enum(['key', 'org', 'provider']).optional(),
  model: z.string().min(1).optional(),
  sharedAcrossModels: z.boolean().optional(),
  timeZone: z.string().optional(),
});

const Accounting = z.strictObject({
  tokenAdmission: z.enum(['input', 'input+max_tokens', 'max(input,max_tokens)']).optional(),
  chargeOutputToTokens: z.boolean().optional(),
  countRejected: z.boolean().optional(),
});

const Provider = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, { error: 'expected a provider id of lower-case letters, digits and "-", starting with a letter' }),
  vendor: z.enum(VENDOR_IDS as [string, ...string[]]),
  models: z.array(z.string().min(1)).min(1),
  keys: z.array(Key).min(1),
  quotas: z.array(Quota).default([]),
  latency: Latency.default({}),
  accounting: Accounting.default({}),
  options: z.record(z.string(), z.unknown()).default({}),
});

const OneOrMany = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).transform((v) => (Array.isArray(v) ? v : [v]));

const Match = z.strictObject({
  provider: OneOrMany.optional(),
  key: OneOrMany.optional(),
  model: OneOrMany.optional(),
  stream: z.boolean().optional(),
  firstN: z.number().int().positive().optional(),
  everyNth: z.number().int().positive().optional(),
  probability: z.number().min(0).max(1).optional(),
});

export const ERROR_KINDS = [
  'rate_limited',
  'request_too_large',
  'quota_exhausted',
  'slow_down',
  'capacity',
  'server_error',
  'bad_gateway',
  'overloaded',
  'unavailable',
  'timeout',
  'invalid_api_key',
  'invalid_request',
] as const;

const HintSpec = z.strictObject({
  form: z.enum(['vendor', 'seconds', 'ms', 'http-date', 'reset-header', 'body', 'none']).default('vendor'),
  /** The wait to announce; may be zero, negative or absurd on purpose. */
  after: Duration.optional(),
  /** Sent verbatim instead of a formatted wait (garbage on purpose). */
  raw: z.string().optional(),
});

const FaultCommon = {
  id: Id,
  /** Offset from the simulator's start. */
  at: NonNegativeDuration.default(0),
  for: PositiveDuration.optional(),
  match: Match.default({}),
};

const Fault = z.discriminatedUnion('kind', [
  z.strictObject({
    ...FaultCommon,
    kind: z.literal('status'),
    status: z.number().int().min(400).max(599),
    error: z.enum(ERROR_KINDS).optional(),
    hint: HintSpec.optional(),
    shouldRetry: z.boolean().optional(),
    message: z.string().optional(),
  }),
  z.strictObject({ ...FaultCommon, kind: z.literal('latency'), ttft: MsDist.optional(), tokensPerSecond: CountDist.optional() }),
  z.strictObject({ ...FaultCommon, kind: z.literal('hang'), afterHeaders: z.boolean().default(false) }),
  z.strictObject({ ...FaultCommon, kind: z.literal('reset'), afterHeaders: z.boolean().default(false) }),
  z.strictObject({ ...FaultCommon, kind: z.literal('malformed'), mode: z.enum(['truncated-json', 'garbage', 'empty', 'wrong-content-type']).default('truncated-json') }),
  z.strictObject({
    ...FaultCommon,
    kind: z.literal('stream-break'),
    afterChunks: z.number().int().nonnegative(),
    end: z.enum(['close', 'reset', 'error-event']).default('close'),
    error: z.enum(ERROR_KINDS).default('overloaded'),
  }),
  z.strictObject({
    ...FaultCommon,
    kind: z.literal('keep-alive'),
    holdFor: PositiveDuration,
    interval: PositiveDuration.default(1000),
    then: z.enum(['continue', 'close']).default('continue'),
  }),
]);

const Simulator = z.strictObject({
  host: z.enum(['127.0.0.1', '::1']).default('127.0.0.1'),
  port: z.number().int().min(0).max(65535).default(0),
  /** Request headers that carry a client correlation id. */
  correlationHeaders: z.array(z.string().min(1)).default(['x-throttlelab-correlation-id']),
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: z.number().int().positive().default(4 * 1024 * 1024),
  ledger: z.strictObject({ maxRows: z.number().int().positive().default(2_000_000) }).default({ maxRows: 2_000_000 }),
});

/** The checks a run can evaluate, in report order. */
export const CHECK_IDS = ['no-429', 'retry-after', 'deadline', 'failover-latency', 'single-probe', 'no-blind-retry', 'amplification', 'goodput', 'key-isolation', 'stream-integrity', 'usage'] as const;
export type CheckId = (typeof CHECK_IDS)[number];

const TEN_MINUTES = 600_000;

/** Which router a run puts under test. */
const RouterSection = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('reference'),
    /** Reference-router config fields (deadline, retry, breaker, routing, aliases…); providers come from the simulator. */
    config: z.record(z.string(), z.unknown()).default({}),
  }),
  z.strictObject({
    kind: z.literal('command'),
    /** A shell command that starts the router; it gets the simulator's URLs and keys in its environment. */
    command: z.string().min(1),
    cwd: z.string().optional(),
    env: z.record(z.string(), z.string()).default({}),
    /** Path polled until it answers, to know the router is up. */
    readyPath: z.string().startsWith('/').default('/v1/models'),
    startTimeout: PositiveDuration.default(30_000),
  }),
  z.strictObject({
    kind: z.literal('url'),
    /** The router's OpenAI-compatible base URL, e.g. http://127.0.0.1:4000/v1 (loopback only). */
    url: z.url().refine((u) => /^https?:\/\/(127\.0\.0\.1|\[::1\]|localhost)(:\d+)?(\/|$)/.test(u), { message: 'only loopback routers (127.0.0.1, ::1, localhost) may be load-tested' }),
  }),
]);

const ModelChoice = z.union([z.string().min(1).transform((model) => ({ model, weight: 1 })), z.strictObject({ model: z.string().min(1), weight: z.number().positive().default(1) })]);

const Load = z.strictObject({
  /** open: a constant (or ramping) arrival rate; closed: a number of connections, each waiting for its answer (autocannon). */
  mode: z.enum(['open', 'closed']).default('open'),
  duration: PositiveDuration.refine((ms) => ms <= TEN_MINUTES, { message: 'a run is bounded to 10 minutes of load', params: { code: 'SCENARIO_OUT_OF_RANGE' } }),
  rate: z.number().positive().max(50_000).optional(),
  ramp: z.array(z.strictObject({ rate: z.number().nonnegative().max(50_000), for: PositiveDuration })).min(1).optional(),
  connections: z.number().int().positive().max(5000).default(10),
  maxInFlight: z.number().int().positive().max(20_000).default(2000),
  maxRequests: z.number().int().positive().max(5_000_000).default(1_000_000),
  /** Bearer token the router requires, if any. */
  routerToken: z.string().optional(),
  /**
   * Extra headers on every request (a gateway's config header, say); `${THROTTLELAB_…}` names the
   * variables a router is given, such as a simulated provider's base URL or key.
   */
  headers: z.record(z.string(), z.string()).default({}),
  requests: z
    .strictObject({
      models: z.array(ModelChoice).min(1).default([{ model: 'auto', weight: 1 }]),
      /** Share of requests that stream. */
      stream: z.number().min(0).max(1).default(0),
      promptTokens: CountDist.default({ dist: 'uniform', min: 20, max: 200 }),
      maxTokens: z.number().int().positive().optional(),
      /** Each request's deadline, sent to the router in x-throttlelab-deadline-ms and judged by the deadline check. */
      deadline: PositiveDuration.default(10_000),
    })
    .default({ models: [{ model: 'auto', weight: 1 }], stream: 0, promptTokens: { dist: 'uniform', min: 20, max: 200 }, deadline: 10_000 }),
});

const Expect = z.strictObject({
  /** Checks to run (default: all). */
  checks: z.array(z.enum(CHECK_IDS)).optional(),
  skip: z.array(z.enum(CHECK_IDS)).default([]),
  /**
   * `tolerance` forgives timer granularity at a wait's end; `inFlightGrace` forgives other requests'
   * attempts arriving just after the hinted answer left (sent before the router could read it).
   */
  retryAfter: z
    .strictObject({ tolerance: NonNegativeDuration.default(10), inFlightGrace: NonNegativeDuration.default(50), scope: z.enum(['model', 'key']).default('model') })
    .default({ tolerance: 10, inFlightGrace: 50, scope: 'model' }),
  deadline: z.strictObject({ tolerance: NonNegativeDuration.default(50) }).default({ tolerance: 50 }),
  failoverLatency: z.strictObject({ p99: PositiveDuration.optional() }).default({}),
  noBlindRetry: z.strictObject({ floor: NonNegativeDuration.default(50) }).default({ floor: 50 }),
  amplification: z.strictObject({ maxAttemptsPerRequest: z.number().positive().default(4), maxRetryShare: z.number().nonnegative().default(1) }).default({ maxAttemptsPerRequest: 4, maxRetryShare: 1 }),
  /**
   * `serviceTime`: a request counts against goodput only if some provider that could serve it had
   * capacity earlier than this before its deadline (no router can serve in the last moment).
   */
  goodput: z.strictObject({ min: z.number().min(0).max(1).default(0.95), serviceTime: NonNegativeDuration.default(500) }).default({ min: 0.95, serviceTime: 500 }),
  usage: z.strictObject({ source: z.enum(['response', 'none']).default('response') }).default({ source: 'response' }),
});

/**
 * The scenario file: the simulated world (`simulator`, `providers`, `faults`), and for a run the
 * router under test, the load and the expectations. Files without a load can still be simulated.
 */
export const ScenarioSchema = z.strictObject({
  version: z.literal(1),
  name: z.string().min(1),
  description: z.string().optional(),
  seed: z.number().int().min(0).max(4294967295).optional(),
  simulator: Simulator.default(Simulator.parse({})),
  providers: z.array(Provider).min(1),
  faults: z.array(Fault).default([]),
  /** The router under test (`throttlelab run`); the reference router by default. */
  router: RouterSection.default({ kind: 'reference', config: {} }),
  /** The traffic a run sends; required by `throttlelab run`. */
  load: Load.optional(),
  expect: Expect.default(Expect.parse({})),
});

/** A fault as validated from a scenario or the control API. */
export const FaultSchema = Fault;

export type Scenario = z.output<typeof ScenarioSchema>;
export type ProviderSpec = Scenario['providers'][number];
export type QuotaSpec = ProviderSpec['quotas'][number];
export type FaultSpec = z.output<typeof FaultSchema>;
export type LatencySpec = ProviderSpec['latency'];
export type LoadSpec = NonNullable<Scenario['load']>;
export type ExpectSpec = Scenario['expect'];
export type RouterSpec = Scenario['router'];
