import { z } from 'zod';
import { MAX_DURATION_MS, readDuration } from './duration.js';

const Duration = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const ms = readDuration(v);
  if (ms === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `expected a duration such as 250ms, 30s or 2m, got ${JSON.stringify(v)}`,
      params: { code: 'CONFIG_INVALID_DURATION' },
      input: v,
    });
    return z.NEVER;
  }
  if (ms > MAX_DURATION_MS) {
    ctx.addIssue({
      code: 'custom',
      message: `expected at most 24d (timers cannot wait longer), got ${JSON.stringify(v)}`,
      params: { code: 'CONFIG_OUT_OF_RANGE' },
      input: v,
    });
    return z.NEVER;
  }
  return ms;
});

/** A duration that must be more than zero: a zero timeout or deadline fails every request. */
const PositiveDuration = Duration.refine((ms) => ms > 0, {
  message: 'expected a duration greater than zero',
  params: { code: 'CONFIG_OUT_OF_RANGE' },
});

const Id = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, { error: 'expected an id of lower-case letters, digits, "-" or "_"' });
const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'expected an environment variable name' });

const Model = z.strictObject({
  name: z.string().min(1),
  /** Dollars per million input tokens. */
  inputCostPerMTok: z.number().nonnegative().default(0),
  outputCostPerMTok: z.number().nonnegative().default(0),
  /** 0 (worst) to 1 (best), configured. */
  quality: z.number().min(0).max(1).default(0.5),
  /** What the model serves: `auto` stands for the chat models, embeddings requests for the embedding models. */
  kind: z.enum(['chat', 'embeddings']).default('chat'),
});

const Provider = z.strictObject({
  id: Id,
  vendor: z.enum([
    'openai',
    'azure-openai',
    'anthropic',
    'gemini',
    'groq',
    'mistral',
    'deepseek',
    'openai-compatible',
    'bedrock',
    'vertex-ai',
    'openrouter',
    'cerebras',
    'together',
    'xai',
  ]),
  /**
   * The base URL as the vendor's SDK takes it (e.g. `https://api.openai.com/v1`); for Vertex AI up
   * to the location (`https://us-central1-aiplatform.googleapis.com/v1/projects/P/locations/us-central1`),
   * for Bedrock the runtime endpoint (`https://bedrock-runtime.us-east-1.amazonaws.com`).
   */
  baseUrl: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }),
  /** Azure's `api-version`. */
  apiVersion: z.string().optional(),
  /** Bedrock's AWS region for SigV4 signing (default: read from the base URL's host, else us-east-1). */
  region: z.string().optional(),
  /**
   * Keys are read from environment variables; their values never appear in config or logs. For
   * Bedrock a key is `ACCESS_KEY_ID:SECRET_ACCESS_KEY` (signed with SigV4) or a Bedrock API key.
   * `org`: the organisation (or project) whose limits the key shares with the provider's other
   * keys of the same `org`; a rate limit the provider names as the organisation's closes them all.
   */
  keys: z.array(z.strictObject({ id: Id, env: EnvName, org: Id.optional() })).min(1),
  models: z
    .array(
      z.union([
        z
          .string()
          .min(1)
          .transform((name) => Model.parse({ name })),
        Model,
      ]),
    )
    .min(1),
});

const Weights = z.strictObject({
  cost: z.number().nonnegative().default(1),
  latency: z.number().nonnegative().default(1),
  reliability: z.number().nonnegative().default(2),
  quality: z.number().nonnegative().default(1),
  capacity: z.number().nonnegative().default(2),
});

const parse = <T extends z.ZodType>(schema: T) => schema.parse({}) as z.output<T>;

const Server = z.strictObject({
  host: z.string().default('127.0.0.1'),
  port: z.number().int().min(0).max(65535).default(8080),
  /** Environment variables holding bearer tokens the router requires; none means open. */
  authTokens: z.array(z.strictObject({ env: EnvName })).default([]),
  maxBodyBytes: z
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  /** Longest a client may take to send its headers (a slowloris trickle is cut with 408). */
  headersTimeout: PositiveDuration.default(10_000),
  /** Longest a client may take to send its whole request, body included (the answer is not bounded by this). */
  requestTimeout: PositiveDuration.default(30_000),
  /** Most client connections open at once; more are refused at connect. */
  maxConnections: z.number().int().positive().default(4096),
  /** Responses output items kept for clients' `item_reference`s (router/apis/response-items.ts). */
  responseItems: z
    .strictObject({
      maxItems: z.number().int().nonnegative().default(10_000),
      /** Characters of the items' JSON, all callers together. */
      maxBytes: z
        .number()
        .int()
        .nonnegative()
        .default(32 * 1024 * 1024),
      /** With a Redis store: how long a caller's items live in Redis after its last one. */
      sharedTtl: Duration.default(3_600_000),
      /** With a Redis store: the most items kept there per caller, the oldest out first. */
      maxPerCaller: z.number().int().positive().default(1000),
    })
    .default({ maxItems: 10_000, maxBytes: 32 * 1024 * 1024, sharedTtl: 3_600_000, maxPerCaller: 1000 }),
  /** How long a stop waits for requests in flight before cutting them (streams end with an error event). */
  shutdownGrace: Duration.default(5000),
});

const Admission = z.strictObject({
  /** Most client requests being routed at once; more get 503 with Retry-After at once. */
  maxInFlight: z.number().int().positive().default(2048),
  /**
   * Most requests held waiting for capacity; more get 503 with Retry-After at once. Requests are
   * also shed early when the capacity expected before their deadline is already spoken for.
   */
  maxWaiting: z.number().int().nonnegative().default(512),
});

const Deadline = z.strictObject({
  default: PositiveDuration.default(30_000),
  /** Request header a client uses to tighten (never loosen) its deadline, in ms. */
  header: z.string().default('x-throttlelab-deadline-ms'),
});

const Attempt = z.strictObject({
  timeout: PositiveDuration.default(30_000),
  /** Time allowed before the first content token of a stream (keep-alives do not count). */
  firstTokenTimeout: PositiveDuration.default(15_000),
  /**
   * Where another target could take the request, cut an attempt at the larger of 8× its target's
   * usual duration and half the time left, so that a hang leaves time to fail over
   * (router/core/attempt-timeout.ts).
   */
  leaveRoomToFailOver: z.boolean().default(true),
  /** Largest answer (not streamed) read from a provider. */
  maxResponseBytes: z
    .number()
    .int()
    .positive()
    .default(64 * 1024 * 1024),
  /**
   * Most memory answers being read from all providers may hold at once; an attempt past it fails,
   * not the process. A JSON answer counts three times its bytes (bytes, text and parsed answer are
   * alive together while it is decoded), reserved from its content-length before it is read.
   */
  maxBufferedBytes: z
    .number()
    .int()
    .positive()
    .default(256 * 1024 * 1024),
});

const Retry = z.strictObject({
  maxAttempts: z.number().int().positive().default(6),
  backoff: z
    .strictObject({ base: PositiveDuration.default(200), max: PositiveDuration.default(5000) })
    .default({ base: 200, max: 5000 }),
  /** Longest single wait considered before failing fast. */
  maxWait: Duration.default(30_000),
  /** Shortest time worth starting an attempt in. */
  minAttempt: Duration.default(250),
  budget: z
    .strictObject({
      ratio: z.number().min(0).default(0.25),
      minPerWindow: z.number().int().nonnegative().default(20),
      window: PositiveDuration.default(10_000),
    })
    .default({ ratio: 0.25, minPerWindow: 20, window: 10_000 }),
});

const Breaker = z.strictObject({
  failureThreshold: z.number().int().positive().default(3),
  openFor: PositiveDuration.default(2000),
  /**
   * Longest window an announced wait is honoured for: a daily quota's reset is at most a day away
   * (25 h on the day clocks go back), so a wall announced for 10 h keeps its target out for 10 h;
   * an absurd hint (99 999 999 h, a reset years away) is capped here, then probed.
   */
  maxOpenFor: PositiveDuration.default(25 * 3_600_000),
  /**
   * Longest a window without a hint grows to as failed probes double it: an outage is re-probed
   * (by one request) at least this often, as the vendors' SDKs cap their backoff (8 s for Anthropic's).
   */
  maxBackoffOpenFor: PositiveDuration.default(8000),
  /** Window for quota walls that name no wait. */
  quotaOpenFor: PositiveDuration.default(3_600_000),
  /** Window of a rejected key or a missing model: nothing announces when it ends, so it is re-probed this often. */
  rejectedOpenFor: PositiveDuration.default(3_600_000),
  jitterRatio: z.number().min(0).max(1).default(0.1),
});

/**
 * Where the router keeps its state: in memory (one process), or in Redis, shared by every
 * replica with the same `keyPrefix` so that a fleet acts as one router.
 */
const Store = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('memory') }),
  z.strictObject({
    kind: z.literal('redis'),
    /** `redis://[[user]:password@]host:port[/db]`; prefer `env` for a URL with a password. */
    url: z
      .string()
      .regex(/^rediss?:\/\//, { error: 'expected a redis:// or rediss:// URL' })
      .optional(),
    /** The environment variable holding the URL (default REDIS_URL when `url` is not given). */
    env: EnvName.optional(),
    /** Every key and channel of this fleet starts with it; replicas sharing state share it. */
    keyPrefix: z.string().min(1).max(200).default('throttlelab:'),
    /** A Redis command slower than this counts as Redis being out of reach: the router serves on local state. */
    timeout: Duration.default(250),
    /** Capacity, in-flight and retry-budget news is published this often (circuits are written at once). */
    flushEvery: Duration.default(50),
  }),
]);

const CacheAffinityFields = z.strictObject({
  enabled: z.boolean().default(true),
  /** How long a prefix stays warm where it was served (vendors keep 5 min from the last use). */
  ttl: PositiveDuration.default(300_000),
  /** Most prefixes remembered (least recently used forgotten first). */
  maxEntries: z.number().int().positive().max(10_000_000).default(100_000),
  /** Shorter prompts have no cacheable prefix at any vendor (1024 tokens at the least). */
  minTokens: z.number().int().nonnegative().default(1024),
});

/**
 * Cache affinity: a conversation goes back to the provider and key where its prompt prefix is
 * warm, when that target can serve now. `false` turns it off; `true` or an object turns it on.
 */
const CacheAffinity = z
  .union([z.boolean(), CacheAffinityFields])
  .transform((v) => (typeof v === 'boolean' ? { ...parse(CacheAffinityFields), enabled: v } : v));

/**
 * Exploring: a small share of requests tries first a target never measured, or not for a while,
 * while the measured ones are healthy, so that a provider ranked below the others on priors alone
 * is ever learned about (see docs/decisions/router-explores.md).
 */
const Explore = z.strictObject({
  /** Share of requests that explore; at most a fifth, so that exploring stays a side line. */
  share: z.number().min(0).max(0.2).default(0.05),
  /** A target not measured for this long counts as unmeasured again. */
  staleAfter: PositiveDuration.default(5000),
});

/** The router's config file. */
export const RouterConfigSchema = z.strictObject({
  version: z.literal(1),
  server: Server.default(parse(Server)),
  providers: z.array(Provider).min(1),
  /** Named lists of `provider/model` targets a client can ask for. */
  aliases: z
    .record(z.string().min(1), z.array(z.string().regex(/^[^/]+\/.+$/, { error: 'expected provider/model' })).min(1))
    .default({}),
  /** The model name that means "anything configured". */
  autoModel: z.string().min(1).default('auto'),
  routing: z
    .strictObject({
      weights: Weights.default(parse(Weights)),
      defaultMaxTokens: z.number().int().positive().default(1024),
      explore: Explore.default(parse(Explore)),
    })
    .default({ weights: parse(Weights), defaultMaxTokens: 1024, explore: parse(Explore) }),
  deadline: Deadline.default(parse(Deadline)),
  admission: Admission.default(parse(Admission)),
  attempt: Attempt.default(parse(Attempt)),
  retry: Retry.default(parse(Retry)),
  breaker: Breaker.default(parse(Breaker)),
  /** Request headers passed on to providers (correlation ids). */
  forwardHeaders: z.array(z.string().min(1)).default(['x-throttlelab-correlation-id']),
  cacheAffinity: CacheAffinity.default(parse(CacheAffinityFields)),
  store: Store.default({ kind: 'memory' }),
});

export type RouterConfig = z.output<typeof RouterConfigSchema>;
export type ProviderConfig = RouterConfig['providers'][number];
export type StoreConfig = RouterConfig['store'];
