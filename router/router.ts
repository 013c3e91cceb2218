// Over 300 lines on purpose: the request loop, selection and waiting share one router's private
// state; learning (engine/learn.ts), answers (engine/route-result.ts) and views live beside it.
import type { RouterConfig } from './config/schema.js';
import { backoffMs } from './core/backoff.js';
import { CacheAffinity, preferWarm, type Prefix, type WarmPrefix } from './core/cache-affinity.js';
import { NEVER_CANCELLED, type AbortLike } from './core/cancel.js';
import { CapacityBook } from './core/capacity.js';
import { CircuitBook } from './core/circuit-book.js';
import type { BreakerSettings } from './core/circuit-policy.js';
import { learnFromAttempt, type LearnContext } from './engine/learn.js';
import { breakerSettingsOf, circuitOptionsOf } from './engine/settings.js';
import type { Clock } from './core/clock.js';
import { systemClock } from './engine/system-clock.js';
import { createDeadline, waitFits, type Deadline } from './core/deadline.js';
import { Ewma } from './core/ewma.js';
import { Wakeup } from './engine/wakeup.js';
import { RetryBudget } from './core/retry-budget.js';
import { createRng, type Rng } from './core/rng.js';
import { rankCandidates, rankOrder, type CandidateFacts, type Scored } from './core/scoring.js';
import type { AttemptOutcome, AttemptRecord, ChatRequest } from './core/types.js';
import { runAttempt, type AttemptEnv, type AttemptResult } from './engine/attempt.js';
import { attemptRecord } from './engine/attempt-record.js';
import { estimateInputTokens } from './engine/estimate.js';
import { prefixesToRemember, prefixKeys, uncachedInput } from './engine/prefix-keys.js';
import { loadPrefixHasher, prefixHasherLoaded } from './engine/prefix-hasher.js';
import { Meter } from './engine/meter.js';
import { DurationHistogram, renderMetrics } from './engine/metrics.js';
import { renderStateView } from './engine/state-view.js';
import {
  answered,
  deadlineExceeded,
  exhausted,
  failWith,
  noCapacity,
  retryAfterMs,
  type RouteResult,
} from './engine/route-result.js';
import { createRedactor } from './engine/redact.js';
import { buildTargets, candidateOf, type TargetRuntime } from './engine/target.js';
import { validateChatRequest } from './engine/validate-request.js';
import { validateEmbeddingsRequest } from './engine/validate-embeddings.js';
import { createStore } from './state/create-store.js';
import type { StoreEvent } from './state/redis-store.js';
import type { StateStore } from './core/state-store.js';
import { createFleetLink } from './engine/fleet-link.js';
import type { Transport } from './transport/transport.js';
import { createUndiciTransport } from './transport/undici-transport.js';

/** What a router is built from besides its config. */
export interface RouterDeps {
  /** Environment holding the providers' keys; only `bin/` passes the real one. */
  env: Readonly<Record<string, string | undefined>>;
  clock?: Clock;
  rng?: Rng;
  /** Seed for the default Rng. */
  seed?: number;
  transport?: Transport;
  /** The state store; by default the one the config names (memory, or Redis for a fleet), which `close()` closes. */
  store?: StateStore;
  /** This replica's name in a fleet (lease ids, reports); only `bin/` knows the process's. */
  replica?: string;
  /** Hears what happens to the shared state (lost, rejoined), once per change. */
  onStoreEvent?: (event: StoreEvent) => void;
}

/** Per-request options. */
export interface RouteOptions {
  /** Aborts when the client goes away; the upstream attempt is cancelled with it (an AbortSignal will do). */
  signal?: AbortLike;
  /** Tightens the configured deadline (never loosens it). */
  deadlineMs?: number;
  /** Headers to pass on to providers (correlation ids). */
  forward?: Record<string, string>;
  /** What the body is: a chat request (the default) or an embeddings request. */
  api?: 'chat' | 'embeddings';
  /** The body's text, when `body` was parsed from it unchanged (a same-API adapter reuses it). */
  raw?: string;
}

export type { RouteResult } from './engine/route-result.js';

/** A target admitted through its circuits, with the probe leases it took on the way. */
interface Pick {
  target: TargetRuntime;
  probes: readonly string[];
}

/** No prefixes (no cache affinity, or a short prompt): shared, never mutated. */
const NO_PREFIXES: readonly Prefix[] = Object.freeze([]);

/** No probe taken: shared by every pick through closed circuits (never mutated; a probe makes a new array). */
const NO_PROBES: readonly string[] = Object.freeze([]);

interface RequestState {
  req: ChatRequest;
  api: 'chat' | 'embeddings';
  stream: boolean;
  deadline: Deadline;
  signal: AbortLike;
  forward: Record<string, string>;
  raw?: string;
  inputTokens: number;
  attempts: AttemptRecord[];
  /** Targets that failed since the last wait, without a window of their own (made at the first). */
  excluded?: Set<string>;
  /** The request's cacheable prompt prefixes, longest first (empty without cache affinity). */
  prefixes: readonly Prefix[];
  /** Where its prefix is warm, looked up when it arrived. */
  warm?: WarmPrefix;
}

/**
 * The reference router: ranks targets on cost, latency, reliability, quality and capacity, keeps
 * circuits per provider and per key, fails over within one request, waits `max(server wait,
 * backoff)` only when nothing else can serve and only if the wait fits the request's one deadline,
 * and never passes a provider's 429 to its client.
 */
export class Router {
  readonly config: RouterConfig;
  readonly targets: readonly TargetRuntime[];
  private readonly byModel: Map<string, TargetRuntime[]>;
  /** What `auto` stands for: the chat models, or for embeddings the embedding models. */
  private readonly autoTargets: { chat: TargetRuntime[]; embeddings: TargetRuntime[] };
  private readonly clock: Clock;
  private readonly rng: Rng;
  private readonly transport: Transport;
  private readonly circuits: CircuitBook;
  /** The state store: circuits, and the fleet's shared capacity, budget and usage. */
  readonly store: StateStore;
  private readonly ownsStore: boolean;
  private readonly capacity: CapacityBook;
  private readonly budget: RetryBudget;
  private readonly meter = new Meter();
  private readonly reliability = new Map<string, Ewma>();
  private readonly requests = new Map<string, number>();
  private readonly duration = new DurationHistogram();
  private readonly env: AttemptEnv;
  private readonly breaker: BreakerSettings;
  private readonly wakeup = new Wakeup();
  private readonly learning: LearnContext;
  /** Requests being routed now, and the most held waiting for capacity at once. */
  private inFlight = 0;
  private waitingHighWater = 0;
  /** Requests waiting for capacity, by the model name they asked for. */
  private readonly waitingFor = new Map<string, number>();
  private readonly shed = new Map<string, number>();
  /** Where each prompt prefix was last served (cache affinity), and how requests fared by it. */
  private readonly affinity: CacheAffinity | undefined;
  private readonly affinityCounts = { warm: 0, fallback: 0, cold: 0 };
  /** The ranking's seeded tie-break, made once rather than per request. */
  private readonly tiebreak = () => this.rng.next();

  constructor(config: RouterConfig, deps: RouterDeps) {
    this.config = config;
    this.clock = deps.clock ?? systemClock;
    this.rng = deps.rng ?? createRng(deps.seed ?? 1);
    this.transport = deps.transport ?? createUndiciTransport();
    this.breaker = breakerSettingsOf(config);
    this.capacity = new CapacityBook({ maxResetInMs: config.breaker.maxOpenFor });
    this.ownsStore = deps.store === undefined;
    this.store =
      deps.store ??
      createStore(config, {
        env: deps.env,
        clock: this.clock,
        replica: deps.replica ?? 'local',
        onEvent: deps.onStoreEvent,
      });
    this.circuits = new CircuitBook(this.store, circuitOptionsOf(config), this.rng, () => this.wakeup.notify());
    this.budget = new RetryBudget({
      ratio: config.retry.budget.ratio,
      minPerWindow: config.retry.budget.minPerWindow,
      windowMs: config.retry.budget.window,
    });
    this.store.link(createFleetLink({ capacity: this.capacity, budget: this.budget, meter: this.meter }));
    const built = buildTargets(config, deps.env);
    this.byModel = built.byModel;
    this.targets = built.targets;
    this.autoTargets = {
      chat: built.targets.filter((t) => t.modelConfig.kind === 'chat'),
      embeddings: built.targets.filter((t) => t.modelConfig.kind === 'embeddings' && t.adapter.embeddings),
    };
    this.env = {
      clock: this.clock,
      transport: this.transport,
      capacity: this.capacity,
      attemptTimeoutMs: config.attempt.timeout,
      firstTokenTimeoutMs: config.attempt.firstTokenTimeout,
      defaultMaxTokens: config.routing.defaultMaxTokens,
      maxResponseBytes: config.attempt.maxResponseBytes,
      buffers: { held: 0, max: config.attempt.maxBufferedBytes },
      redact: createRedactor(this.targets.map((t) => t.apiKey)),
    };
    this.learning = {
      circuits: this.circuits,
      breaker: this.breaker,
      reliability: this.reliability,
      meter: this.meter,
    };
    for (const p of config.providers) this.reliability.set(p.id, new Ewma(20));
    const ca = config.cacheAffinity;
    this.affinity = ca.enabled ? new CacheAffinity({ ttlMs: ca.ttl, maxEntries: ca.maxEntries }) : undefined;
  }

  /** The targets a requested model name stands for: auto, an alias, `provider/model`, or a model name. */
  resolve(model: string, api: 'chat' | 'embeddings' = 'chat'): TargetRuntime[] {
    if (model === this.config.autoModel) return [...this.autoTargets[api]];
    if (api === 'embeddings') return this.resolve(model).filter((t) => t.adapter.embeddings);
    const alias = this.config.aliases[model];
    if (alias) return alias.flatMap((t) => this.byModel.get(t) ?? []);
    return this.byModel.get(model) ?? [];
  }

  /** The model names a client can ask for, as `GET /v1/models` lists them. */
  modelNames(): string[] {
    const names = new Set<string>([this.config.autoModel, ...Object.keys(this.config.aliases)]);
    for (const p of this.config.providers) for (const m of p.models) names.add(`${p.id}/${m.name}`);
    return [...names];
  }

  /** Routes one chat request (the parsed JSON body) to completion, failover included. */
  async route(body: unknown, options: RouteOptions = {}): Promise<RouteResult> {
    const started = this.clock.now();
    let result: RouteResult;
    if (this.inFlight >= this.config.admission.maxInFlight) {
      result = this.shedNow(
        'max_in_flight',
        `The router is already routing ${this.inFlight} requests (admission.maxInFlight).`,
        1,
      );
    } else {
      this.inFlight++;
      try {
        result = await this.routeInner(body, options, started);
      } finally {
        this.inFlight--;
      }
    }
    const label = result.kind === 'stream' ? 'stream' : result.status < 400 ? 'ok' : String(result.status);
    this.requests.set(label, (this.requests.get(label) ?? 0) + 1);
    this.duration.observe((this.clock.now() - started) / 1000);
    return result;
  }

  private async routeInner(body: unknown, options: RouteOptions, now: number): Promise<RouteResult> {
    const api = options.api ?? 'chat';
    const valid = api === 'chat' ? validateChatRequest(body) : validateEmbeddingsRequest(body);
    if (!valid.ok) return failWith(400, 'invalid_request', 'invalid_request_error', valid.message, [], {}, valid.param);
    const req = valid.req;
    const candidates = this.resolve(req.model, api);
    if (candidates.length === 0) {
      const what = api === 'chat' ? '' : ' for embeddings (by a provider that serves them)';
      return failWith(
        404,
        'model_not_found',
        'invalid_request_error',
        `The model \`${req.model}\` is not routed here${what}. Ask for one of: ${this.modelNames().join(', ')}.`,
        [],
      );
    }
    const budgetMs = Math.min(options.deadlineMs ?? Infinity, this.config.deadline.default);
    const state: RequestState = {
      req,
      api,
      stream: api === 'chat' && req.stream === true,
      deadline: createDeadline(now, Math.max(0, budgetMs)),
      signal: options.signal ?? NEVER_CANCELLED,
      forward: options.forward ?? {},
      raw: options.raw,
      inputTokens: estimateInputTokens(req),
      attempts: [],
      prefixes: NO_PREFIXES,
    };
    const minTokens = this.config.cacheAffinity.minTokens;
    if (this.affinity && state.inputTokens >= minTokens) {
      if (!prefixHasherLoaded()) await loadPrefixHasher();
      state.prefixes = prefixKeys(req, minTokens);
      state.warm = this.affinity.lookup(state.prefixes, now);
    }
    this.budget.onRequest(now);
    for (;;) {
      const t = this.clock.now();
      if (state.signal.aborted)
        return failWith(499, 'client_closed', 'client_closed', 'The client closed the request.', state.attempts);
      // Timers are millisecond-grained and may fire a fraction early: under a millisecond left is no time.
      if (t >= state.deadline.at - 1) return deadlineExceeded(state.deadline, state.attempts);
      if (state.attempts.length >= this.config.retry.maxAttempts)
        return this.exhausted(state, candidates, t, 'max_attempts');
      const pick = this.select(candidates, state, t);
      if (pick) {
        if (state.attempts.length > 0 && !this.budget.tryTake(t)) {
          this.releaseProbes(pick, t);
          return this.exhausted(state, candidates, t, 'retry_budget');
        }
        const result = await this.attempt(pick, state);
        if (result.kind === 'unsent')
          return failWith(
            400,
            'invalid_request',
            'invalid_request_error',
            `The request could not be translated for ${pick.target.provider}: ${result.message}.`,
            state.attempts,
          );
        if (result.kind !== 'failed') return this.success(pick, result, state);
        if (result.outcome.kind === 'client_error') {
          return failWith(
            result.outcome.status,
            'upstream_rejected_request',
            'invalid_request_error',
            `The provider rejected the request: ${result.outcome.message}`,
            state.attempts,
          );
        }
        if (result.outcome.kind === 'aborted') continue;
        (state.excluded ??= new Set()).add(pick.target.id);
        continue;
      }
      // Nothing can serve now: wait for the earliest candidate, and after failed attempts never
      // less than the backoff for their number; only if the wait still leaves time for an attempt
      // before the deadline. A circuit changing state (a probe answering) ends the wait early.
      const earliest = this.earliestAvailable(candidates, t, true);
      const { base, max } = this.config.retry.backoff;
      const floor =
        state.attempts.length === 0 ? 0 : backoffMs(state.attempts.length - 1, { baseMs: base, maxMs: max }, this.rng);
      // Zero means a probe is in flight or only this request's failed targets are ready: look again after the base backoff, or when woken.
      const wait = Math.max(earliest - t, floor) || base;
      if (wait > this.config.retry.maxWait || !waitFits(state.deadline, t, wait, this.config.retry.minAttempt))
        return noCapacity(state.deadline, state.attempts, this.earliestAvailable(candidates, t), t);
      const refused = this.admitWaiter(candidates, state, t + wait, t);
      if (refused) return refused;
      const model = state.req.model;
      this.waitingFor.set(model, (this.waitingFor.get(model) ?? 0) + 1);
      this.waitingHighWater = Math.max(this.waitingHighWater, this.wakeup.waiting + 1);
      let elapsed: boolean;
      try {
        elapsed = await this.wakeup.sleep(this.clock, wait, state.signal);
      } finally {
        const left = this.waitingFor.get(model)! - 1;
        if (left === 0) this.waitingFor.delete(model);
        else this.waitingFor.set(model, left);
      }
      if (elapsed) state.excluded?.clear();
    }
  }

  /**
   * Whether a request may wait for capacity: refused (503 with Retry-After, at once rather than at
   * its deadline) when `admission.maxWaiting` requests wait already, or when the requests already
   * waiting for the same model take all the capacity the providers are expected to have before its
   * deadline. Unknown limits are never spoken for.
   */
  private admitWaiter(
    candidates: TargetRuntime[],
    state: RequestState,
    from: number,
    now: number,
  ): RouteResult | undefined {
    const retryIn = () => retryAfterMs(this.earliestAvailable(candidates, now), now);
    if (this.wakeup.waiting >= this.config.admission.maxWaiting)
      return this.shedNow(
        'max_waiting',
        `The router is already holding ${this.wakeup.waiting} requests for capacity (admission.maxWaiting).`,
        retryIn(),
        state.attempts,
      );
    const ahead = this.waitingFor.get(state.req.model) ?? 0;
    if (ahead === 0) return undefined;
    const to = state.deadline.at - this.config.retry.minAttempt;
    let expected = 0;
    for (const t of candidates) {
      let at = Math.max(from, t.disabledUntil);
      // As the wait itself counts them: a probe in flight may answer (and wake us) any moment.
      for (const scope of t.scopes) at = Math.max(at, this.circuits.waitableAt(scope, now));
      if (at >= to) continue;
      expected += this.capacity.expectedRequests(t.id, this.admissionTokens(t, state), at, to);
      if (expected === Infinity) return undefined;
    }
    if (ahead < expected) return undefined;
    return this.shedNow(
      'spoken_for',
      `No capacity before the deadline: the ${Math.floor(expected)} requests the providers are expected to take by then are spoken for by ${ahead} already waiting.`,
      retryIn(),
      state.attempts,
    );
  }

  /** A 503 with Retry-After given instead of holding a request, counted by reason. */
  private shedNow(reason: string, message: string, retryInMs: number, attempts: AttemptRecord[] = []): RouteResult {
    this.shed.set(reason, (this.shed.get(reason) ?? 0) + 1);
    const retryAfter = String(Math.max(1, Math.ceil(retryInMs / 1000)));
    return failWith(503, 'router_overloaded', 'service_unavailable', message, attempts, { 'retry-after': retryAfter });
  }

  /** Ranks the candidates that can serve now and admits the best through its circuits. */
  private select(candidates: TargetRuntime[], state: RequestState, now: number): Pick | undefined {
    const usable: TargetRuntime[] = [];
    for (const t of candidates) if (this.usableNow(t, state, now)) usable.push(t);
    if (usable.length === 0) return undefined;
    // One usable target needs no ranking: it is admitted or nothing is.
    let ranked =
      usable.length === 1
        ? usable
        : this.rankTargets(
            usable,
            state.inputTokens,
            state.req.max_completion_tokens ?? state.req.max_tokens ?? 256,
            now,
          );
    if (this.affinity && state.prefixes.length > 0 && state.attempts.length === 0) {
      // Cache affinity: the target where this prompt's prefix is warm goes first if it can serve now.
      const warm = state.warm?.target;
      const result = warm === undefined ? 'cold' : usable.some((t) => t.id === warm) ? 'warm' : 'fallback';
      this.affinityCounts[result]++;
      ranked = preferWarm(
        ranked.map((t) => ({ target: t.id, t })),
        warm,
      ).map((r) => r.t);
    }
    for (const target of ranked) {
      const pick = this.admit(target, now);
      if (pick) return pick;
    }
    return undefined;
  }

  /** Passes a target's circuits in order; refused by one, the probe leases taken before it go back. */
  private admit(target: TargetRuntime, now: number): Pick | undefined {
    let probes = NO_PROBES;
    for (const scope of target.scopes) {
      const pass = this.circuits.pass(scope, now);
      if (!pass) {
        this.releaseProbes({ probes }, now);
        return undefined;
      }
      if (pass.probe) probes = [...probes, scope];
    }
    return { target, probes };
  }

  /**
   * The tokens a target's limits will be charged up front: where the prompt's prefix is warm and
   * the vendor does not charge cache reads to input limits, only the rest of the prompt.
   */
  private admissionTokens(t: TargetRuntime, state: RequestState): number {
    const warm = state.warm;
    const input =
      warm !== undefined && warm.target === t.id
        ? uncachedInput(t.adapter.vendor, state.inputTokens, warm.tokens)
        : state.inputTokens;
    return t.adapter.admissionTokens(state.req, input);
  }

  /** Whether a target can take this request now: not failed in it, not disabled, circuits passable, capacity free. */
  private usableNow(t: TargetRuntime, state: RequestState, now: number): boolean {
    if (state.excluded?.has(t.id) || t.disabledUntil > now) return false;
    for (const scope of t.scopes) if (!this.circuits.isPassable(scope, now)) return false;
    return this.capacity.availableAt(t.id, this.admissionTokens(t, state), now) <= now;
  }

  /** The usable targets best first, as `rank` orders them (same scores, same draws), with nothing explained. */
  private rankTargets(
    usable: TargetRuntime[],
    inputTokens: number,
    expectedOutput: number,
    now: number,
  ): TargetRuntime[] {
    const order = rankOrder(
      this.factsOf(usable, inputTokens, expectedOutput, now),
      this.config.routing.weights,
      this.tiebreak,
    );
    const out: TargetRuntime[] = [];
    for (const i of order) out.push(usable[i]!);
    return out;
  }

  private rank(usable: TargetRuntime[], inputTokens: number, expectedOutput: number, now: number): Scored[] {
    return rankCandidates(
      this.factsOf(usable, inputTokens, expectedOutput, now),
      this.config.routing.weights,
      this.tiebreak,
    );
  }

  /** Each target as the scorer sees it for this request. */
  private factsOf(usable: TargetRuntime[], inputTokens: number, expectedOutput: number, now: number): CandidateFacts[] {
    const facts: CandidateFacts[] = [];
    for (const t of usable)
      facts.push(candidateOf(t, inputTokens, expectedOutput, this.reliability.get(t.provider)!, this.capacity, now));
    return facts;
  }

  private releaseProbes(pick: { probes: readonly string[] }, now: number): void {
    for (const scope of pick.probes) this.circuits.release(scope, now);
  }

  /**
   * When the first candidate could be tried; `waiting` counts a probe in flight as now (its answer
   * wakes waiters). Never further than `breaker.maxOpenFor`: no learned reset, however absurd,
   * makes a client wait longer than the longest window a hint is honoured for.
   */
  private earliestAvailable(candidates: TargetRuntime[], now: number, waiting = false): number {
    const earliest = this.earliestUncapped(candidates, now, waiting);
    return Number.isFinite(earliest) ? Math.min(earliest, now + this.breaker.maxOpenForMs) : earliest;
  }

  private earliestUncapped(candidates: TargetRuntime[], now: number, waiting: boolean): number {
    let earliest = Infinity;
    for (const t of candidates) {
      if (t.disabledUntil > now + this.config.retry.maxWait) continue;
      // As Math.max over the target's own pause, each scope's circuit and its capacity, in that order.
      let at = t.disabledUntil;
      for (const scope of t.scopes)
        at = Math.max(at, waiting ? this.circuits.waitableAt(scope, now) : this.circuits.availableAt(scope, now));
      at = Math.max(at, this.capacity.availableAt(t.id, 0, now));
      earliest = Math.min(earliest, at);
    }
    return earliest;
  }

  private async attempt(pick: Pick, state: RequestState): Promise<AttemptResult> {
    const { target } = pick;
    const startedAt = this.clock.now();
    const result = await runAttempt(this.env, {
      target,
      req: state.req,
      api: state.api,
      stream: state.stream,
      clientWantsUsage: state.req.stream_options?.include_usage === true,
      deadline: state.deadline,
      signal: state.signal,
      forward: state.forward,
      raw: state.raw,
      admissionTokens: this.admissionTokens(target, state),
    });
    if (result.kind === 'unsent') {
      // No request left: the probe leases go back untested and the provider is not blamed.
      this.releaseProbes(pick, this.clock.now());
      return result;
    }
    const outcome: AttemptOutcome = result.kind === 'failed' ? result.outcome : { kind: 'ok', status: 200 };
    state.attempts.push(attemptRecord(target, startedAt, result, outcome));
    if (result.kind !== 'stream')
      this.meter.attempt(target.id, outcome.kind, result.kind === 'json' ? result.usage : undefined);
    learnFromAttempt(this.learning, pick, outcome, result, startedAt, this.clock.now());
    // The attempt's slot is free again: one waiter may take it (all wake on circuit changes).
    if (result.kind === 'stream') void result.done.then(() => this.wakeup.notify(1));
    else this.wakeup.notify(1);
    return result;
  }

  private success(
    pick: { target: TargetRuntime },
    result: Extract<AttemptResult, { kind: 'json' | 'stream' }>,
    state: RequestState,
  ): RouteResult {
    this.meter.served(pick.target.id);
    if (this.affinity && state.prefixes.length > 0)
      this.affinity.remember(prefixesToRemember(state.prefixes), pick.target.id, this.clock.now());
    return answered(pick.target, result, state.attempts);
  }

  private exhausted(
    state: RequestState,
    candidates: TargetRuntime[],
    now: number,
    why: 'max_attempts' | 'retry_budget',
  ) {
    return exhausted(state.attempts, this.earliestAvailable(candidates, now), now, why);
  }

  /** Prometheus metrics. */
  metrics(): string {
    return renderMetrics({
      requests: this.requests,
      duration: this.duration,
      usage: this.meter.entries(),
      circuits: this.circuits.entries(),
      retryBudgetRemaining: this.budget.remaining(this.clock.now()),
      store: this.store.health(),
      admission: this.admission(),
      cacheAffinity: this.affinity ? this.affinityCounts : undefined,
    });
  }

  /** Requests being routed and waiting now, the most that waited at once, and those shed by reason. */
  admission(): { inFlight: number; waiting: number; waitingHighWater: number; shed: Record<string, number> } {
    return {
      inFlight: this.inFlight,
      waiting: this.wakeup.waiting,
      waitingHighWater: this.waitingHighWater,
      shed: Object.fromEntries(this.shed),
    };
  }

  /** Each target's circuits, capacity, statistics, usage and score, for the state view. */
  state(): unknown {
    const now = this.clock.now();
    return renderStateView({
      now,
      // A nominal request: ~1,000 input tokens, 500 output.
      ranking: this.rank([...this.targets], 1003, 500, now),
      targets: this.targets,
      circuits: this.circuits,
      capacity: this.capacity,
      reliability: this.reliability,
      meter: this.meter,
      retryBudgetRemaining: this.budget.remaining(now),
      store: this.store.health(),
    });
  }

  /** Loads whatever its adapters load on first use, so that no request waits on it (simulated time needs this). */
  async warmUp(): Promise<void> {
    await Promise.all([
      ...[...new Set(this.targets.map((t) => t.adapter))].map((a) => a.warmUp?.()),
      this.affinity ? loadPrefixHasher() : undefined,
    ]);
  }

  /** Closes upstream connections, and the state store if the router made it. */
  async close(): Promise<void> {
    await this.transport.close();
    if (this.ownsStore) await this.store.close();
  }
}
