import { z } from 'zod';
import { MAX_WAIT_MS, parseDuration } from '../core/duration.js';
import { VENDOR_IDS } from '../vendors/registry.js';

// What a value that is no duration was, for the message: YAML's `.nan` and a number past the
// largest double (`1e309`, read as Infinity) are numbers, but no duration.
function describeValue(value: unknown): string {
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN (.nan)';
  if (typeof value === 'number') return `${value} (.inf, or a number past the largest a double holds, such as 1e309)`;
  return JSON.stringify(value) ?? String(value);
}

/**
 * A duration in YAML (`250ms`, `5s`, `1m30s`, `3d`, or a number of ms), parsed to milliseconds;
 * `allowed` (say, "at most 24d") is added to the message of a value that is no duration at all.
 */
function durationSchema(allowed?: string) {
  const expected = `expected a duration such as 250ms, 5s or 1m30s${allowed ? ` (${allowed})` : ''}`;
  // Any input, so that `.nan` and infinities reach the message below rather than a union's
  // "Invalid input"; anything but text or a number is a wrong type, as a union would say.
  return z.custom<string | number>().transform((value: unknown, ctx) => {
    if (typeof value !== 'string' && typeof value !== 'number') {
      ctx.addIssue({ code: 'invalid_type', expected: 'string', input: value, message: expected });
      return z.NEVER;
    }
    const ms = parseDuration(value);
    if (ms === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `${expected}, got ${describeValue(value)}`,
        params: { code: 'SCENARIO_INVALID_DURATION' },
      });
      return z.NEVER;
    }
    return ms;
  });
}

/** A duration in YAML (`250ms`, `5s`, `1m30s`, `3d`, or a number of ms), parsed to milliseconds. */
export const Duration = durationSchema();

/**
 * A duration from zero (or from just above it) to `maxMs`; a value below the minimum gets only
 * that message, not the maximum's as well.
 */
export function durationWithin(min: 'zero' | 'above-zero', maxMs: number, maxMessage: string) {
  const most = maxMessage.replace(/^expected /, '').replace(/ \((.+)\)$/, ': $1');
  const allowed = `${min === 'zero' ? 'zero or more' : 'greater than zero'}, ${most}`;
  return durationSchema(allowed)
    .refine((ms) => (min === 'zero' ? ms >= 0 : ms > 0), {
      message: min === 'zero' ? 'expected a duration of zero or more' : 'expected a duration greater than zero',
      params: { code: 'SCENARIO_OUT_OF_RANGE' },
      abort: true,
    })
    .refine((ms) => ms <= maxMs, { message: maxMessage, params: { code: 'SCENARIO_OUT_OF_RANGE' } });
}

const AT_MOST_WAIT = 'expected at most 24d (no timer can wait longer)';
/** A duration of zero or more (and a wait a timer can keep). */
export const NonNegativeDuration = durationWithin('zero', MAX_WAIT_MS, AT_MOST_WAIT);
/** A duration greater than zero (and a wait a timer can keep). */
export const PositiveDuration = durationWithin('above-zero', MAX_WAIT_MS, AT_MOST_WAIT);

// Spans on the timeline (a quota window, a fault's start and length) are compared with the
// clock, never waited on: they may be longer than a timer, within reason.
/** The longest span on the timeline (a fault's start or length), ms. */
export const MAX_SPAN_MS = 3650 * 86_400_000;
const SpanFrom = (min: 0 | 1) =>
  durationWithin(min === 0 ? 'zero' : 'above-zero', MAX_SPAN_MS, 'expected at most 3650d');

/** Largest completion a simulated answer may have, in tokens (the biggest real output windows are 128k). */
export const MAX_COMPLETION_TOKENS = 131_072;
/** Most keep-alive fillers one held request sends (30 minutes at one a second is 1,800). */
export const MAX_HOLD_FILLERS = 10_000;
/** Longest a wait hint may lie, either way: ten years. */
const MAX_HINT_MS = 3650 * 86_400_000;

const Id = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, {
  error: 'expected an id of lower-case letters, digits, "-" or "_" (at most 64 characters)',
});

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
/** A distribution of a count (tokens, tokens per second). */
export const CountDist = distOf(z.number().nonnegative() as unknown as z.ZodType<number, unknown>);
/** A distribution of a count bounded by `max`. */
export const boundedCountDist = (max: number) =>
  distOf(z.number().nonnegative().max(max) as unknown as z.ZodType<number, unknown>);

const Latency = z.strictObject({
  /** Time to first token (or to the whole answer's start when not streaming). */
  ttft: MsDist.optional(),
  tokensPerSecond: CountDist.optional(),
  completionTokens: boundedCountDist(MAX_COMPLETION_TOKENS).optional(),
  tokensPerFrame: z.number().int().positive().optional(),
  /** How long error answers take. */
  errorDelay: NonNegativeDuration.optional(),
});

const Key = z.strictObject({
  id: Id,
  value: z.string().min(1).optional(),
  env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'expected an environment variable name' })
    .optional(),
  org: Id.optional(),
});

const Quota = z.strictObject({
  metric: z.enum(['requests', 'tokens', 'input-tokens', 'output-tokens', 'concurrency']),
  limit: z.number().int().positive(),
  per: SpanFrom(1).optional(),
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
  id: z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, {
    error: 'expected a provider id of lower-case letters, digits and "-", starting with a letter',
  }),
  vendor: z.enum(VENDOR_IDS as [string, ...string[]]),
  models: z.array(z.string().min(1)).min(1),
  keys: z.array(Key).min(1),
  quotas: z.array(Quota).default([]),
  latency: Latency.default({}),
  accounting: Accounting.default({}),
  options: z.record(z.string(), z.unknown()).default({}),
  /** How often the model answers a request that offers tools with a seeded tool call (default 1: always, unless it just got tool results). */
  toolCallRate: z.number().min(0).max(1).optional(),
});

const OneOrMany = z
  .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
  .transform((v) => (Array.isArray(v) ? v : [v]));

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
  /** The wait to announce; may be zero, negative or absurd on purpose (within ten years). */
  after: durationSchema('within ±3650d')
    .refine((ms) => Math.abs(ms) <= MAX_HINT_MS, {
      message: 'expected a wait within ±3650d',
      params: { code: 'SCENARIO_OUT_OF_RANGE' },
    })
    .optional(),
  /** Sent verbatim instead of a formatted wait (garbage on purpose). */
  raw: z.string().optional(),
  /** Whose limit the wait is announced for: the key (default), its organisation, or the whole provider. */
  scope: z.enum(['key', 'org', 'provider']).optional(),
});

const FaultCommon = {
  id: Id,
  /** Offset from the simulator's start (`simulate`) or from the load's start (`run`, `conform`). */
  at: SpanFrom(0).default(0),
  for: SpanFrom(1).optional(),
  match: Match.default({}),
  /** A run is not inconclusive when this fault matched no attempt (its traffic may not come). */
  optional: z.boolean().optional(),
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
  z.strictObject({
    ...FaultCommon,
    kind: z.literal('latency'),
    ttft: MsDist.optional(),
    tokensPerSecond: CountDist.optional(),
  }),
  z.strictObject({ ...FaultCommon, kind: z.literal('hang'), afterHeaders: z.boolean().default(false) }),
  z.strictObject({ ...FaultCommon, kind: z.literal('reset'), afterHeaders: z.boolean().default(false) }),
  z.strictObject({
    ...FaultCommon,
    kind: z.literal('malformed'),
    mode: z.enum(['truncated-json', 'garbage', 'empty', 'wrong-content-type']).default('truncated-json'),
  }),
  z.strictObject({
    ...FaultCommon,
    kind: z.literal('stream-break'),
    afterChunks: z.number().int().nonnegative(),
    end: z.enum(['close', 'reset', 'error-event']).default('close'),
    error: z.enum(ERROR_KINDS).default('overloaded'),
  }),
  z
    .strictObject({
      ...FaultCommon,
      kind: z.literal('keep-alive'),
      holdFor: PositiveDuration,
      interval: PositiveDuration.default(1000),
      then: z.enum(['continue', 'close']).default('continue'),
    })
    // Each filler is a step of the reply's script, planned when the request arrives.
    .refine((f) => f.holdFor / f.interval <= MAX_HOLD_FILLERS, {
      path: ['interval'],
      message: `a hold sends one filler per interval, at most ${MAX_HOLD_FILLERS}: lengthen "interval" or shorten "holdFor"`,
      params: { code: 'SCENARIO_OUT_OF_RANGE' },
    }),
]);

const Simulator = z.strictObject({
  host: z.enum(['127.0.0.1', '::1']).default('127.0.0.1'),
  port: z.number().int().min(0).max(65535).default(0),
  /** Request headers that carry a client correlation id. */
  correlationHeaders: z.array(z.string().min(1)).default(['x-throttlelab-correlation-id']),
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: z
    .number()
    .int()
    .positive()
    .default(4 * 1024 * 1024),
  ledger: z.strictObject({ maxRows: z.number().int().positive().default(2_000_000) }).default({ maxRows: 2_000_000 }),
});

/**
 * The simulated world of a scenario file: the simulator's settings, the providers and the fault
 * timeline. The harness extends this shape with the run sections (`router`, `load`, `expect`).
 */
export const SCENARIO_WORLD_SHAPE = {
  version: z.literal(1),
  name: z.string().min(1),
  description: z.string().optional(),
  seed: z.number().int().min(0).max(4294967295).optional(),
  simulator: Simulator.default(Simulator.parse({})),
  providers: z.array(Provider).min(1),
  faults: z.array(Fault).default([]),
};

/** A scenario as the simulator reads it: only the world, every key known. */
export const ScenarioSchema = z.strictObject(SCENARIO_WORLD_SHAPE);

/** A fault as validated from a scenario or the control API. */
export const FaultSchema = Fault;

export type Scenario = z.output<typeof ScenarioSchema>;
export type ProviderSpec = Scenario['providers'][number];
export type FaultSpec = z.output<typeof FaultSchema>;
