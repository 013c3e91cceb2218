// Over 300 lines on purpose: one request's whole path (route, auth, validation, faults, quota
// admission, ledger record) reads best in one place; answers are scripted in script-answer.ts.
import { ContentDigest } from '../core/content-digest.js';
import { createRng, deriveSeed, type Rng } from '../core/rng.js';
import { Ledger, type AttemptStart } from '../ledger/ledger.js';
import type { LedgerRow } from '../ledger/ledger-row.js';
import type { Costs, LimitView, QuotaTicket } from '../quota/quota-set.js';
import { MAX_COMPLETION_TOKENS, type FaultSpec, type Scenario } from '../scenario/schema.js';
import { maskKey } from '../vendors/openai-compatible.js';
import type {
  ChatRequest,
  Completion,
  EncodeContext,
  ErrorKind,
  ErrorSpec,
  HeaderMap,
  Route,
  SimRequest,
  VendorProfile,
} from '../vendors/types.js';
import { randomHex } from '../vendors/wire-format.js';
import { createWindowStart } from '../quota/window-start.js';
import { StepBuilder } from './build-steps.js';
import { findCorrelationId } from './correlation.js';
import { FaultBook, type FaultDecision } from './fault-book.js';
import { Keyring, type KeyMatch } from './keyring.js';
import { createProviderRuntime, type ProviderRuntime } from './provider-runtime.js';
import { cachePolicyFor, type CacheLookup } from './prompt-cache.js';
import { promptSegments } from './prompt-segments.js';
import { staticReply, type Reply } from './reply.js';
import { sample } from './sample.js';
import { scriptAnswer } from './script-answer.js';
import { countPromptTokens, tokenRuleFor, warmTokenizer } from './tokens.js';
import { createVocabulary, generateTokens, quoteText, type Vocabulary } from './vocabulary.js';
import { seedToolCall } from '../vendors/tool-calls.js';

/** What the engine needs beyond the scenario. */
export interface EngineOptions {
  seed: number;
  /** Credential values by `providerId/keyId`, resolved from the scenario and environment. */
  keyValues: ReadonlyMap<string, string>;
  startedAt: number;
}

const DEFAULT_ERROR_STATUS: Record<number, ErrorKind> = {
  400: 'invalid_request',
  401: 'invalid_api_key',
  402: 'quota_exhausted',
  404: 'not_found',
  429: 'rate_limited',
  500: 'server_error',
  502: 'bad_gateway',
  503: 'overloaded',
  504: 'timeout',
  529: 'overloaded',
};

function minRemaining(views: readonly LimitView[], metrics: readonly string[]): number {
  let min = Number.NaN;
  for (const v of views) if (metrics.includes(v.rule.metric) && !(v.remaining >= min)) min = v.remaining;
  return min;
}

const DAY_MS = 86_400_000;
const TOKEN_METRICS = ['tokens', 'input-tokens'];
const REQUEST_METRICS = ['requests'];
const NO_VIEWS: LimitView[] = [];
const EMPTY_QUERY = new URLSearchParams();

interface Attempt {
  start: AttemptStart;
  provider: ProviderRuntime;
  ctx: EncodeContext;
  tokensIn: number;
  faults: string[];
  /** What the request reads from and writes to the prompt cache, once admitted. */
  cache?: CacheLookup;
  /** Set once admitted: how long the quota would refuse the same request again. */
  emptyForMs?: number;
}

/**
 * The simulated vendors' brain: routes a request to its provider, authenticates, validates,
 * applies scheduled faults and live quotas, and scripts the vendor-shaped reply, recording the
 * attempt in the ledger. Pure apart from the ledger and quota state it owns: time comes in as
 * `now`, randomness from the seed.
 */
export class Engine {
  readonly providers: ProviderRuntime[];
  readonly byId: ReadonlyMap<string, ProviderRuntime>;
  readonly ledger: Ledger;
  readonly faults: FaultBook;
  readonly keyring = new Keyring();
  readonly startedAt: number;
  private readonly seed: number;
  private readonly vocabulary: Vocabulary;
  private readonly correlationHeaders: readonly string[];
  private dateSecond = -1;
  private dateText = '';

  constructor(
    readonly scenario: Scenario,
    options: EngineOptions,
  ) {
    this.seed = options.seed;
    this.startedAt = options.startedAt;
    this.providers = scenario.providers.map((p, i) => createProviderRuntime(p, i));
    this.byId = new Map(this.providers.map((p) => [p.id, p]));
    this.ledger = new Ledger({ maxRows: scenario.simulator.ledger.maxRows });
    this.faults = new FaultBook(options.seed);
    this.vocabulary = createVocabulary(deriveSeed(options.seed, 0));
    this.correlationHeaders = scenario.simulator.correlationHeaders.map((h) => h.toLowerCase());
    for (const p of this.providers) {
      for (const k of p.spec.keys) {
        const value = options.keyValues.get(`${p.id}/${k.id}`);
        if (value !== undefined)
          this.keyring.add(
            p.profile.keyIdentity?.(value) ?? value,
            { providerIndex: p.index, providerId: p.id, keyId: k.id, org: k.org ?? k.id },
            value.split(':'),
          );
      }
    }
    for (const f of scenario.faults) this.faults.add(f, this.startedAt, 'scenario');
    if (this.providers.some((p) => tokenRuleFor(p.profile.id) === 'o200k')) warmTokenizer();
  }

  /** Places a fault on the timeline, its `at` counted from `now`. */
  addLiveFault(spec: FaultSpec, now: number): void {
    this.faults.remove(spec.id);
    this.faults.add(spec, now, 'live');
  }

  /** Answers one request that arrived at `now`. */
  handle(req: SimRequest, now: number, bodyTooLarge = false): Reply {
    const q = req.url.indexOf('?');
    const path = q < 0 ? req.url : req.url.slice(0, q);
    const slash = path.indexOf('/', 1);
    const providerId = slash < 0 ? path.slice(1) : path.slice(1, slash);
    const provider = this.byId.get(providerId);
    if (!provider) {
      const known = this.providers.map((p) => `/${p.id}`).join(', ');
      return staticReply(
        404,
        JSON.stringify({
          error: {
            message: `Failed to route ${req.method} ${path}: no simulated provider "${providerId}". Providers are served under ${known}.`,
            type: 'not_found',
          },
        }),
      );
    }
    const rest = slash < 0 ? '/' : path.slice(slash);
    const query = q < 0 ? EMPTY_QUERY : new URLSearchParams(req.url.slice(q + 1));
    let route: Route;
    try {
      route = provider.profile.route(req.method, rest, query);
    } catch {
      // A malformed %-escape in a path segment (a model or deployment name): no such path.
      route = { kind: 'not-found', method: req.method, path: rest };
    }
    // The profile with the bodies of the API the path names (chat, Responses, embeddings).
    const profile = (route.kind === 'chat' && route.api && provider.apis.get(route.api)) || provider.profile;
    const rng = createRng(deriveSeed(this.seed, 1, this.ledger.size));
    const credential = profile.credential(req, query);
    const key = this.keyring.match(credential, provider.index);
    const retryHeader = req.headers['x-stainless-retry-count'];
    const retry = retryHeader === undefined ? null : Number.parseInt(retryHeader, 10);
    const ctx: EncodeContext = {
      now,
      rng,
      requestId: randomHex(rng, 32),
      providerId: provider.id,
      org: key.kind === 'own' ? key.owner.org : 'unknown',
      model: route.kind === 'chat' ? (route.model ?? '') : '',
      options: provider.options,
      meta: route.kind === 'chat' ? route.meta : undefined,
    };
    const attempt: Attempt = {
      provider,
      ctx,
      tokensIn: 0,
      faults: [],
      start: {
        arrivalAt: now,
        provider: provider.id,
        vendor: profile.id,
        key: Keyring.label(key),
        endpoint: route.kind === 'chat' ? (route.api ?? 'chat') : route.kind === 'models' ? 'models' : 'other',
        model: route.kind === 'chat' ? (route.model ?? null) : null,
        correlationId: findCorrelationId(req.headers, this.correlationHeaders, undefined),
        sdkRetryCount: retry !== null && Number.isFinite(retry) ? retry : null,
        stream: route.kind === 'chat' && route.stream === true,
        carried: this.keyring.scan(
          req.headers,
          query,
          req.body,
          provider.index,
          key.kind === 'own' || key.kind === 'foreign' ? key.owner : undefined,
        ),
      },
    };

    if (route.kind === 'not-found')
      return this.fail(attempt, { kind: 'not_found', message: `Invalid URL (${req.method} ${rest})` });
    if (key.kind !== 'own') return this.fail(attempt, authError(key, credential));
    const preflight = profile.preflight?.(req);
    if (preflight) return this.fail(attempt, preflight);
    if (route.kind === 'models') return this.models(attempt);

    if (bodyTooLarge) return this.fail(attempt, { kind: 'payload_too_large' });
    let body: unknown;
    try {
      body = JSON.parse(req.body);
    } catch {
      return this.fail(attempt, { kind: 'bad_json' });
    }
    const parsed = profile.parse(route, body);
    if ('kind' in parsed) return this.fail(attempt, parsed);
    const chat = parsed;
    ctx.model = chat.model;
    attempt.start.model = chat.model;
    attempt.start.stream = chat.stream;
    attempt.start.correlationId ??= findCorrelationId({}, [], chat.promptText);
    if (!provider.models.has(chat.model)) return this.fail(attempt, { kind: 'model_not_found' });
    attempt.tokensIn = countPromptTokens(profile.id, chat.promptText, chat.messageCount, !chat.embedding);

    const decision = this.faults.decide(
      { providerId: provider.id, keyId: key.owner.keyId, model: chat.model, stream: chat.stream },
      now,
    );
    attempt.faults = decision.ids;
    const caller = { keyId: key.owner.keyId, org: key.owner.org };
    const fault = decision.response?.spec;
    if (fault?.kind === 'status') {
      const buckets = provider.quota.bucketsFor(caller, chat.model, now);
      const views = provider.quota.view(buckets, now);
      const spec = statusFaultError(fault, this.defaultHintMs(provider, fault, now));
      // A forced rate limit in the vendor's own form (or in its reset headers) reads as a real one
      // on the provider's shortest limit, shown spent until the wait ends: a 429 beside "4998
      // remaining" is no vendor's. An explicit Retry-After form carries the wait alone, beside the
      // quota as it is (so a lying Retry-After lies alone).
      const form = spec.hint?.form;
      const target =
        spec.kind === 'rate_limited' && (form === 'vendor' || form === 'reset-header')
          ? shortestLimit(views)
          : undefined;
      if (!target) return this.fail(attempt, spec, views);
      const rule = target.rule;
      spec.violation = { rule, metric: rule.metric, limit: target.limit, used: target.limit, requested: 1 };
      const waitMs = Math.max(target.resetInMs, Math.max(0, spec.hint!.ms));
      const shown = views.map((v) => (v === target ? { ...v, remaining: 0, resetInMs: waitMs } : v));
      return this.fail(attempt, spec, views, shown);
    }

    // The prompt cache: looked up before admission (cache reads may not count toward input
    // limits), written only once the request is admitted.
    const policy = cachePolicyFor(profile.id, chat.model, provider.options);
    const cache = policy
      ? provider.cache.lookup(
          key.owner.org,
          chat.model,
          promptSegments(profile.id, route.api, body),
          attempt.tokensIn,
          policy,
          now,
        )
      : undefined;
    const uncounted = cache && !policy!.readsCountTowardLimits ? cache.read : 0;
    const costs = this.costs(provider, chat, attempt.tokensIn - uncounted);
    const admission = provider.quota.admit(caller, chat.model, costs, now);
    if (!admission.ok) {
      if (provider.accounting.countRejected) provider.quota.chargeRejected(admission.buckets, now);
      const v = admission.violation;
      const spec: ErrorSpec = {
        kind: v.tooLarge ? 'request_too_large' : 'rate_limited',
        violation: { rule: v.rule, metric: v.rule.metric, limit: v.rule.limit, used: v.used, requested: v.requested },
        hint: v.tooLarge || Number.isNaN(v.waitMs) ? undefined : { ms: v.waitMs, form: 'vendor' },
      };
      return this.fail(attempt, spec, provider.quota.view(admission.buckets, now));
    }
    attempt.emptyForMs = provider.quota.waitFor(admission.ticket.buckets, costs, now);
    if (cache) {
      provider.cache.commit(cache, now);
      attempt.cache = cache;
    }
    return this.succeed(attempt, profile, chat, admission.ticket, costs, decision, rng);
  }

  private costs(provider: ProviderRuntime, chat: ChatRequest, input: number): Costs {
    const max = chat.maxTokens ?? 0;
    const rule = provider.accounting.tokenAdmission;
    const tokens = rule === 'input' ? input : rule === 'input+max_tokens' ? input + max : Math.max(input, max);
    return { requests: 1, tokens, 'input-tokens': input, 'output-tokens': 0, concurrency: 1 };
  }

  // Waits a forced fault announces when the scenario names none: a daily wall lasts until the
  // provider's day window ends, or without one until the vendor's midnight (Pacific for Gemini,
  // UTC otherwise); anything else a second.
  private defaultHintMs(provider: ProviderRuntime, fault: FaultSpec & { kind: 'status' }, now: number): number {
    if (fault.hint?.after !== undefined) return fault.hint.after;
    if (fault.error === 'quota_exhausted') {
      const daily = provider.quota.rules.find((r) => r.windowMs >= DAY_MS && r.windowStart);
      if (daily?.windowStart) return daily.windowStart(now) + daily.windowMs - now;
      return createWindowStart(DAY_MS, provider.profile.defaults.dayWindowTimeZone)(now) + DAY_MS - now;
    }
    return 1000;
  }

  private date(now: number): string {
    const second = Math.floor(now / 1000);
    if (second !== this.dateSecond) {
      this.dateSecond = second;
      this.dateText = new Date(second * 1000).toUTCString();
    }
    return this.dateText;
  }

  private record(
    attempt: Attempt,
    status: number,
    errorType: string | null,
    hint: { ms: number; form: LedgerRow['hintForm'] } | undefined,
    views: readonly LimitView[],
    admitted: Costs | undefined,
    tokensOut: number,
    end: LedgerRow['end'],
    content?: ContentDigest,
  ): number {
    const seq = this.ledger.begin(attempt.start);
    const reqAfter = minRemaining(views, REQUEST_METRICS);
    const tokAfter = minRemaining(views, TOKEN_METRICS);
    this.ledger.plan(seq, {
      status,
      errorType,
      hintMs: hint ? hint.ms : null,
      hintForm: hint ? (hint.form as never) : null,
      requestsBefore: admitted ? reqAfter + admitted.requests : reqAfter,
      requestsAfter: reqAfter,
      tokensBefore: admitted ? tokAfter + admitted.tokens : tokAfter,
      tokensAfter: tokAfter,
      emptyForMs: attempt.emptyForMs ?? Number.NaN,
      tokensIn: attempt.tokensIn,
      tokensOut,
      cacheRead: attempt.cache?.read,
      cacheWrite: attempt.cache?.write,
      faults: attempt.faults,
      end,
      contentDigest: content ? content.value() : Number.NaN,
      contentChars: content?.length,
    });
    return seq;
  }

  private baseHeaders(attempt: Attempt): HeaderMap {
    const headers = attempt.provider.profile.commonHeaders(attempt.ctx);
    headers.date = this.date(attempt.ctx.now);
    return headers;
  }

  /** Records and scripts an error; `shown` are the limits its headers describe, `views` the real ones. */
  private fail(attempt: Attempt, spec: ErrorSpec, views: LimitView[] = NO_VIEWS, shown = views): Reply {
    const { provider, ctx } = attempt;
    if (spec.kind === 'invalid_api_key' || spec.kind === 'missing_api_key') ctx.org = 'unknown';
    const encoded = provider.profile.error(spec, shown, ctx);
    const headers = Object.assign(this.baseHeaders(attempt), encoded.headers);
    headers['content-length'] = String(Buffer.byteLength(encoded.body));
    const seq = this.record(
      attempt,
      encoded.status,
      encoded.errorType,
      encoded.hintSent,
      views,
      undefined,
      0,
      'complete',
    );
    const steps = new StepBuilder().wait(provider.latency.errorDelayMs).head().write(encoded.body).end();
    return this.reply(seq, encoded.status, headers, steps);
  }

  private models(attempt: Attempt): Reply {
    const body = attempt.provider.profile.models(attempt.provider.spec.models, attempt.ctx);
    const headers = this.baseHeaders(attempt);
    headers['content-type'] = attempt.provider.profile.contentType?.(false, attempt.ctx) ?? 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
    const seq = this.record(attempt, 200, null, undefined, NO_VIEWS, undefined, 0, 'complete');
    return this.reply(seq, 200, headers, new StepBuilder().head().write(body).end());
  }

  private succeed(
    attempt: Attempt,
    profile: VendorProfile,
    chat: ChatRequest,
    ticket: QuotaTicket,
    costs: Costs,
    decision: FaultDecision,
    rng: Rng,
  ): Reply {
    const { provider, ctx } = attempt;
    const { latency } = provider;
    const now = ctx.now;
    // Embeddings generate nothing: their cost is the input alone.
    const drawn = chat.embedding
      ? 0
      : Math.min(MAX_COMPLETION_TOKENS, Math.max(1, Math.round(sample(latency.completionTokens, rng))));
    const count = chat.maxTokens !== undefined ? Math.min(drawn, chat.maxTokens) : drawn;
    const tokens = count > 0 ? generateTokens(this.vocabulary, rng, count) : [];
    // A request offering tools is answered with a seeded call of one (after its text), unless it
    // hands back tool results or was cut by max_tokens; `toolCallRate` sets how often.
    const rate = provider.spec.toolCallRate ?? 1;
    const toolCall =
      chat.tools && !chat.afterToolResult && drawn <= count && (chat.tools.some((t) => t.forced) || rng.next() < rate)
        ? seedToolCall(chat.tools, rng, profile.id === 'anthropic' ? 'toolu_01' : 'call_')
        : undefined;
    const completion: Completion = {
      id: profile.completionId(ctx),
      createdAt: now,
      model: chat.model,
      tokens,
      textJson: quoteText(this.vocabulary, tokens.join('')),
      inputTokens: attempt.tokensIn,
      cacheRead: attempt.cache?.read,
      cacheWrite: attempt.cache?.write,
      finishReason: drawn > count ? 'length' : 'stop',
      maxTokens: chat.maxTokens,
      embedding: chat.embedding,
      toolCall,
    };
    const ttftDist = decision.ttft ?? latency.ttft;
    const tpsDist = decision.tokensPerSecond ?? latency.tokensPerSecond;
    const ttftMs = ttftDist ? sample(ttftDist, rng) : 0;
    const tps = tpsDist ? sample(tpsDist, rng) : 0;
    const msPerToken = tps > 0 ? 1000 / tps : 0;
    ctx.processingMs = ttftMs + msPerToken * count;
    const views = provider.quota.view(ticket.buckets, now);
    if (profile.id === 'mistral') ctx.meta = { ...ctx.meta, cost: String(costs.tokens) };
    const headers = Object.assign(this.baseHeaders(attempt), profile.rateLimitHeaders(views, ctx));
    headers['content-type'] =
      profile.contentType?.(chat.stream, ctx) ??
      (chat.stream ? 'text/event-stream; charset=utf-8' : 'application/json');
    const script = scriptAnswer({
      profile,
      ctx,
      chat,
      completion,
      headers,
      fault: decision.response?.spec,
      ttftMs,
      msPerToken,
      tokensPerFrame: latency.tokensPerFrame,
      rng,
    });
    const { status, errorType, tokensOut, end } = script;
    const content = chat.embedding ? undefined : new ContentDigest();
    if (content) for (const t of tokens) content.update(t);
    const seq = this.record(attempt, status, errorType, undefined, views, costs, tokensOut, end, content);
    const reply = this.reply(seq, 200, headers, script.steps, provider, ticket);
    if (profile.binaryStreams && chat.stream) reply.binary = true;
    return reply;
  }

  private reply(
    seq: number,
    status: number,
    headers: HeaderMap,
    steps: Reply['steps'],
    provider?: ProviderRuntime,
    ticket?: QuotaTicket,
  ): Reply {
    const ledger = this.ledger;
    const chargeOutput = provider?.accounting.chargeOutputToTokens ?? false;
    return {
      status,
      headers,
      steps,
      onHead: (at) => ledger.firstByteAt(seq, at),
      onFinish(at, outcome) {
        ledger.finish(
          seq,
          at,
          outcome.stopped ? 'shutdown' : outcome.aborted ? 'client-abort' : undefined,
          ticket ? outcome.tokensDelivered : undefined,
        );
        if (provider && ticket) {
          const out = outcome.tokensDelivered;
          provider.quota.settle(ticket, { tokens: chargeOutput ? out : 0, 'output-tokens': out, concurrency: -1 }, at);
        }
      },
    };
  }
}

/** The limit a forced 429 pretends to hit: the shortest window, requests before tokens on a tie. */
function shortestLimit(views: LimitView[]): LimitView | undefined {
  let target: LimitView | undefined;
  for (const v of views) {
    const m = v.rule.metric;
    if (m !== 'requests' && m !== 'tokens' && m !== 'input-tokens') continue;
    if (
      !target ||
      v.rule.windowMs < target.rule.windowMs ||
      (v.rule.windowMs === target.rule.windowMs && m === 'requests' && target.rule.metric !== 'requests')
    )
      target = v;
  }
  return target;
}

function authError(key: KeyMatch, credential: string | undefined): ErrorSpec {
  if (key.kind === 'none') return { kind: 'missing_api_key' };
  return { kind: 'invalid_api_key', maskedKey: maskKey(credential ?? '') };
}

function statusFaultError(fault: FaultSpec & { kind: 'status' }, hintMs: number): ErrorSpec {
  const kind =
    fault.error ?? DEFAULT_ERROR_STATUS[fault.status] ?? (fault.status >= 500 ? 'server_error' : 'invalid_request');
  // Throttling errors carry the vendor's usual wait unless told otherwise; other errors carry
  // none, but keep the vendor's usual headers, unless the fault names a hint.
  const throttling =
    kind === 'rate_limited' || kind === 'quota_exhausted' || kind === 'capacity' || kind === 'slow_down';
  const form = fault.hint?.form ?? (throttling ? 'vendor' : undefined);
  return {
    kind,
    status: fault.status,
    message: fault.message,
    shouldRetry: fault.shouldRetry,
    hint: form === undefined ? undefined : { ms: hintMs, form, raw: fault.hint?.raw },
  };
}
