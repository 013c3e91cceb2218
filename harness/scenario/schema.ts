import { z } from 'zod';
import {
  boundedCountDist,
  durationWithin,
  NonNegativeDuration,
  PositiveDuration,
  SCENARIO_WORLD_SHAPE,
} from '../../simulator/scenario-index.js';
import { FLEET_FIELDS, RUN_FAULTS, splitFaults } from '../fleet/fleet-spec.js';

/** The checks a run can evaluate, in report order. */
export const CHECK_IDS = [
  'no-429',
  'retry-after',
  'deadline',
  'failover-latency',
  'single-probe',
  'no-blind-retry',
  'amplification',
  'goodput',
  'key-isolation',
  'stream-integrity',
  'answer-integrity',
  'content-integrity',
  'usage',
  'no-needless-error',
  'recovery',
  'own-answers',
  'no-leak',
  'request-fidelity',
  'cache-use',
  'client-errors',
  'duplicate-work',
] as const;
export type CheckId = (typeof CHECK_IDS)[number];

const TEN_MINUTES = 600_000;
const TWO_DAYS = 172_800_000;
/** The most load a run on the wall clock may take; longer scenarios run with `--time simulated`. */
export const WALL_CLOCK_MAX_LOAD_MS = TEN_MINUTES;
/** Longest prompt a load request carries, in tokens: text is generated for each request as it is sent. */
export const MAX_PROMPT_TOKENS = 200_000;

/** Which router a run puts under test. */
const RouterSection = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('reference'),
    /** Reference-router config fields (deadline, retry, breaker, routing, aliases…); providers come from the simulator. */
    config: z.record(z.string(), z.unknown()).default({}),
    ...FLEET_FIELDS,
  }),
  z.strictObject({
    kind: z.literal('command'),
    /** A shell command that starts the router; it gets the simulator's URLs and keys in its environment. */
    command: z.string().min(1),
    cwd: z.string().optional(),
    env: z.record(z.string(), z.string()).default({}),
    /** Path polled until it answers, to know the router is up. */
    readyPath: z.string().startsWith('/').default('/v1/models'),
    /** Where the router serves its OpenAI-compatible API (`/chat/completions` is sent under it). */
    basePath: z.string().startsWith('/').optional(),
    startTimeout: durationWithin('above-zero', TEN_MINUTES, 'a router gets at most 10 minutes to start').default(
      30_000,
    ),
    ...FLEET_FIELDS,
  }),
  z.strictObject({
    kind: z.literal('url'),
    /** The router's OpenAI-compatible base URL, e.g. http://127.0.0.1:4000/v1 (loopback only). */
    url: z.url().refine((u) => /^https?:\/\/(127\.0\.0\.1|\[::1\]|localhost)(:\d+)?(\/|$)/.test(u), {
      message: 'only loopback routers (127.0.0.1, ::1, localhost) may be load-tested',
    }),
  }),
]);

const ModelChoice = z.union([
  z
    .string()
    .min(1)
    .transform((model) => ({ model, weight: 1 })),
  z.strictObject({ model: z.string().min(1), weight: z.number().positive().default(1) }),
]);

const Share = z.number().min(0).max(1).default(0);
const Weight = z.number().nonnegative().default(0);

const Surface = z
  .strictObject({
    apis: z
      .strictObject({ chat: Weight, responses: Weight, messages: Weight, embeddings: Weight })
      .refine((a) => a.chat + a.responses + a.messages + a.embeddings > 0, { message: 'give some API a weight' })
      .default({ chat: 1, responses: 0, messages: 0, embeddings: 0 }),
    /** The model an embeddings request names (required when `apis.embeddings` has a weight). */
    embeddingModel: z.string().min(1).optional(),
    maxTokens: Share,
    temperature: Share,
    topP: Share,
    stop: Share,
    seed: Share,
    tools: Share,
    cacheHints: Share,
  })
  .refine((s) => s.apis.embeddings === 0 || s.embeddingModel !== undefined, {
    message: 'embeddings requests need an embeddingModel',
    path: ['embeddingModel'],
  });

export type SurfaceSpec = z.output<typeof Surface>;

const Load = z.strictObject({
  /** open: a constant (or ramping) arrival rate; closed: a number of connections, each waiting for its answer (autocannon). */
  mode: z.enum(['open', 'closed']).default('open'),
  // Up to two days of simulated time; a wall-clock run refuses more than WALL_CLOCK_MAX_LOAD_MS (bin/).
  duration: durationWithin('above-zero', TWO_DAYS, 'a run is bounded to 48 hours of (simulated) load'),
  rate: z.number().positive().max(50_000).optional(),
  ramp: z
    .array(z.strictObject({ rate: z.number().nonnegative().max(50_000), for: PositiveDuration }))
    .min(1)
    .optional(),
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
      models: z
        .array(ModelChoice)
        .min(1)
        .default([{ model: 'auto', weight: 1 }]),
      /** Share of requests that stream. */
      stream: z.number().min(0).max(1).default(0),
      promptTokens: boundedCountDist(MAX_PROMPT_TOKENS).default({ dist: 'uniform', min: 20, max: 200 }),
      maxTokens: z.number().int().positive().optional(),
      /**
       * Requests belong to `count` conversations, each opening with its own system prompt of
       * `systemTokens` (the prefix a provider's prompt cache can keep): marked with an Anthropic
       * cache breakpoint (`cache_control` on its content part) unless `cacheControl: false`, and
       * named by `prompt_cache_key` when `promptCacheKey: true`.
       */
      conversations: z
        .strictObject({
          count: z.number().int().positive().max(200),
          systemTokens: z.number().int().positive().max(50_000),
          cacheControl: z.boolean().default(true),
          promptCacheKey: z.boolean().default(false),
        })
        .optional(),
      /**
       * A seeded `share` of requests invalid on their face, which no router could serve and every
       * provider refuses with a non-retryable 4xx. `context-too-long`: a prompt of `promptTokens`,
       * past the context window the scenario gives each provider (`options.contextWindow`).
       */
      invalid: z
        .strictObject({
          share: z.number().min(0).max(1),
          kind: z.enum(['context-too-long']).default('context-too-long'),
          promptTokens: z.number().int().positive().max(MAX_PROMPT_TOKENS),
        })
        .optional(),
      /**
       * The client surface beyond a plain chat request (absent: today's requests, byte for byte):
       * which inbound API each request uses (weights), and the share of requests that set each
       * parameter (values drawn from a few each, with the seeded Rng), offer tools with tool
       * calls and results over earlier turns, or carry cache hints on the conversation's shared
       * prefix (`cache_control`, `prompt_cache_key`; needs `conversations`).
       */
      surface: Surface.optional(),
      /** Each request's deadline, sent to the router in x-throttlelab-deadline-ms and judged by the deadline check. */
      deadline: durationWithin(
        'above-zero',
        TEN_MINUTES,
        'a request deadline is at most 10 minutes (a run waits for its slowest answer)',
      ).default(10_000),
    })
    .refine((r) => !r.surface?.cacheHints || r.conversations !== undefined, {
      message: 'cache hints go on a shared prefix: give `conversations` too',
      path: ['surface', 'cacheHints'],
    })
    .default({
      models: [{ model: 'auto', weight: 1 }],
      stream: 0,
      promptTokens: { dist: 'uniform', min: 20, max: 200 },
      deadline: 10_000,
    }),
});

const Expect = z.strictObject({
  /** Checks to run (default: all). */
  checks: z.array(z.enum(CHECK_IDS)).optional(),
  skip: z.array(z.enum(CHECK_IDS)).default([]),
  /**
   * `tolerance` forgives timer granularity and loopback latency; `inFlightGrace` is a fleet's
   * propagation bound: it forgives an attempt another replica sent just after the hinted answer
   * left, before news of the wait could reach it. Within one router no fixed grace applies: an
   * in-flight race is told apart by the measured stalls (see harness/checks/early-attempts.ts).
   */
  retryAfter: z
    .strictObject({
      tolerance: NonNegativeDuration.default(10),
      inFlightGrace: NonNegativeDuration.default(50),
      scope: z.enum(['model', 'key']).default('model'),
    })
    .default({ tolerance: 10, inFlightGrace: 50, scope: 'model' }),
  deadline: z.strictObject({ tolerance: NonNegativeDuration.default(50) }).default({ tolerance: 50 }),
  failoverLatency: z.strictObject({ p99: PositiveDuration.optional() }).default({}),
  /**
   * `floor`: the shortest gap after a hint-less failure before the same request comes back to the
   * same provider; `cap`: the backoff ceiling below which successive gaps must grow (8 s, the
   * Stainless SDKs' MAX_RETRY_DELAY).
   */
  noBlindRetry: z
    .strictObject({ floor: NonNegativeDuration.default(50), cap: PositiveDuration.default(8000) })
    .default({ floor: 50, cap: 8000 }),
  amplification: z
    .strictObject({
      maxAttemptsPerRequest: z.number().positive().default(4),
      maxRetryShare: z.number().nonnegative().default(1),
    })
    .default({ maxAttemptsPerRequest: 4, maxRetryShare: 1 }),
  /**
   * `serviceTime`: a request counts against goodput only if some provider that could serve it had
   * capacity earlier than this before its deadline (no router can serve in the last moment).
   */
  goodput: z
    .strictObject({ min: z.number().min(0).max(1).default(0.95), serviceTime: NonNegativeDuration.default(500) })
    .default({ min: 0.95, serviceTime: 500 }),
  usage: z.strictObject({ source: z.enum(['response', 'none']).default('response') }).default({ source: 'response' }),
  /**
   * `serviceTime`: an error is needless only if capacity existed this long before the request's
   * deadline: time for the one probe a router sends when a wait ends, then for the answer itself.
   */
  noNeedlessError: z.strictObject({ serviceTime: NonNegativeDuration.default(1000) }).default({ serviceTime: 1000 }),
  /** `within`: how soon after a provider can serve again the router must send to it again (recovery). */
  recovery: z.strictObject({ within: PositiveDuration.default(10_000) }).default({ within: 10_000 }),
  /**
   * Model names a client may ask for besides `auto`, `provider/model` and a provider's own model
   * names: each lists what may answer it, as `provider/model` or `provider` (any of its models).
   * answer-integrity also reads the reference router's `config.aliases`.
   */
  aliases: z.record(z.string().min(1), z.array(z.string().min(1)).min(1)).default({}),
});

/**
 * A scenario file as the harness reads it: the simulated world (`simulator`, `providers`,
 * `faults`), and for a run the router under test, the load and the expectations. Files without a
 * load can still be simulated.
 */
export const RunScenarioSchema = z
  .strictObject({
    ...SCENARIO_WORLD_SHAPE,
    /** The simulator's faults, and `redis` faults the harness plays on a fleet's Redis. */
    faults: RUN_FAULTS,
    /** The router under test (`throttlelab run`); the reference router by default. */
    router: RouterSection.default(RouterSection.parse({ kind: 'reference' })),
    /** The traffic a run sends; required by `throttlelab run`. */
    load: Load.optional(),
    expect: Expect.default(Expect.parse({})),
  })
  .transform(splitFaults);

export type RunScenario = z.output<typeof RunScenarioSchema>;
export type LoadSpec = NonNullable<RunScenario['load']>;
export type ExpectSpec = RunScenario['expect'];
export type RouterSpec = RunScenario['router'];
