import type { RouterConfig } from './config/schema.js';
import { CacheAffinity, type Prefix } from './core/cache-affinity.js';
import { NEVER_CANCELLED, type AbortLike } from './core/cancel.js';
import { CapacityBook } from './core/capacity.js';
import { CircuitBook } from './core/circuit-book.js';
import type { Clock } from './core/clock.js';
import { createDeadline, type Deadline } from './core/deadline.js';
import { decideNext, type Decided, type NextInput, type NextSettings, type Selection } from './core/decide-next.js';
import { Ewma } from './core/ewma.js';
import { RetryBudget } from './core/retry-budget.js';
import { createRng, type Rng } from './core/rng.js';
import type { StateStore } from './core/state-store.js';
import type { AttemptOutcome, AttemptRecord } from './core/types.js';
import { Admission, type AdmissionView } from './engine/admission.js';
import { runAttempt, type AttemptEnv, type AttemptResult } from './engine/attempt.js';
import { attemptRecord } from './engine/attempt-record.js';
import { estimateInputTokens } from './engine/estimate.js';
import { createFleetLink } from './engine/fleet-link.js';
import { learnFromAttempt, type LearnContext } from './engine/learn.js';
import { Meter } from './engine/meter.js';
import { DurationHistogram, renderMetrics } from './engine/metrics.js';
import { loadPrefixHasher, prefixHasherLoaded } from './engine/prefix-hasher.js';
import { prefixesToRemember, prefixKeys } from './engine/prefix-keys.js';
import { createRedactor } from './engine/redact.js';
import { answered, failed, failWith, type RouteResult } from './engine/route-result.js';
import { Selector, type Pick, type Selectable } from './engine/selector.js';
import { breakerSettingsOf, circuitOptionsOf } from './engine/settings.js';
import { renderStateView } from './engine/state-view.js';
import { systemClock } from './engine/system-clock.js';
import { buildTargets, type TargetRuntime } from './engine/target.js';
import { validateEmbeddingsRequest } from './engine/validate-embeddings.js';
import { validateChatRequest } from './engine/validate-request.js';
import { Wakeup } from './engine/wakeup.js';
import { createStore } from './state/create-store.js';
import type { StoreEvent } from './state/redis-store.js';
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

/** No prefixes (no cache affinity, or a short prompt): shared, never mutated. */
const NO_PREFIXES: readonly Prefix[] = Object.freeze([]);

/** Selection not run yet: shared by every request's first question of each turn. */
const PENDING: Selection = Object.freeze({ kind: 'pending' });

interface RequestState extends Selectable {
  api: 'chat' | 'embeddings';
  stream: boolean;
  deadline: Deadline;
  signal: AbortLike;
  forward: Record<string, string>;
  raw?: string;
  attempts: AttemptRecord[];
  /** Targets that failed since the last wait, without a window of their own (made at the first). */
  excluded?: Set<string>;
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
  private readonly wakeup = new Wakeup();
  private readonly learning: LearnContext;
  /** Requests in flight and waiting, and those shed. */
  private readonly gate = new Admission(this.wakeup);
  private readonly selector: Selector;
  private readonly next: NextSettings;
  /** Where each prompt prefix was last served (cache affinity). */
  private readonly affinity: CacheAffinity | undefined;

  constructor(config: RouterConfig, deps: RouterDeps) {
    this.config = config;
    this.clock = deps.clock ?? systemClock;
    this.rng = deps.rng ?? createRng(deps.seed ?? 1);
    this.transport = deps.transport ?? createUndiciTransport();
    const breaker = breakerSettingsOf(config);
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
    this.learning = { circuits: this.circuits, breaker, reliability: this.reliability, meter: this.meter };
    for (const p of config.providers) this.reliability.set(p.id, new Ewma(20));
    const ca = config.cacheAffinity;
    this.affinity = ca.enabled ? new CacheAffinity({ ttlMs: ca.ttl, maxEntries: ca.maxEntries }) : undefined;
    const { retry } = config;
    this.selector = new Selector({
      circuits: this.circuits,
      capacity: this.capacity,
      reliability: this.reliability,
      weights: config.routing.weights,
      rng: this.rng,
      affinity: this.affinity !== undefined,
      maxWaitMs: retry.maxWait,
      maxOpenForMs: breaker.maxOpenForMs,
    });
    this.next = {
      maxAttempts: retry.maxAttempts,
      backoff: { baseMs: retry.backoff.base, maxMs: retry.backoff.max },
      maxWaitMs: retry.maxWait,
      minAttemptMs: retry.minAttempt,
      maxWaiting: config.admission.maxWaiting,
    };
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
    if (this.gate.inFlight >= this.config.admission.maxInFlight) {
      result = this.gate.shedNow(
        'max_in_flight',
        `The router is already routing ${this.gate.inFlight} requests (admission.maxInFlight).`,
        1,
      );
    } else {
      this.gate.inFlight++;
      try {
        result = await this.routeInner(body, options, started);
      } finally {
        this.gate.inFlight--;
      }
    }
    const label = result.kind === 'stream' ? 'stream' : result.status < 400 ? 'ok' : String(result.status);
    this.requests.set(label, (this.requests.get(label) ?? 0) + 1);
    this.duration.observe((this.clock.now() - started) / 1000);
    return result;
  }

  private async routeInner(body: unknown, options: RouteOptions, now: number): Promise<RouteResult> {
    const prepared = this.prepare(body, options, now);
    if (!('candidates' in prepared)) return prepared;
    const { state, candidates } = prepared;
    const minTokens = this.config.cacheAffinity.minTokens;
    if (this.affinity && state.inputTokens >= minTokens) {
      if (!prefixHasherLoaded()) await loadPrefixHasher();
      state.prefixes = prefixKeys(state.req, minTokens);
      state.warm = this.affinity.lookup(state.prefixes, now);
    }
    this.budget.onRequest(now);
    for (;;) {
      const t = this.clock.now();
      const { step, pick } = this.decide(state, candidates, t);
      if (step.kind === 'attempt') {
        const answer = this.answerOf(pick!, await this.attempt(pick!, state), state);
        if (answer) return answer;
        continue;
      }
      if (step.kind === 'shed') return this.gate.shedWaiter(step, state.attempts);
      if (step.kind !== 'wait') {
        const earliest = () => this.selector.earliestAvailable(candidates, t);
        return failed(step.failure, state.deadline, state.attempts, earliest, t);
      }
      const model = state.req.model;
      this.gate.startWaiting(model);
      let elapsed: boolean;
      try {
        elapsed = await this.wakeup.sleep(this.clock, step.waitMs, state.signal);
      } finally {
        this.gate.stopWaiting(model);
      }
      if (elapsed) state.excluded?.clear();
    }
  }

  /** A valid request's state and the targets it may go to, or the answer for one that cannot be routed. */
  private prepare(
    body: unknown,
    options: RouteOptions,
    now: number,
  ): { state: RequestState; candidates: TargetRuntime[] } | RouteResult {
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
    return { state, candidates };
  }

  /**
   * The request's next step at `now` as `decideNext` decides it, running selection when it asks
   * (after the checks that end a request, before the backoff's draw: the Rng's order) and taking
   * an extra attempt from the retry budget once a target is admitted.
   */
  private decide(state: RequestState, candidates: TargetRuntime[], now: number): { step: Decided; pick?: Pick } {
    const input: NextInput = {
      now,
      deadline: state.deadline,
      aborted: state.signal.aborted,
      attempts: state.attempts.length,
      settings: this.next,
      selection: PENDING,
    };
    const first = decideNext(input, this.rng);
    if (first.kind !== 'select') return { step: first };
    const pick = this.selector.select(candidates, state, now);
    if (!pick) {
      const facts = this.selector.waitFacts(
        candidates,
        state,
        now,
        this.wakeup.waiting,
        this.gate.ahead(state.req.model),
      );
      return { step: decideNext({ ...input, selection: { kind: 'none', facts } }, this.rng) };
    }
    const paid = !first.extra || this.budget.tryTake(now);
    const step = decideNext({ ...input, selection: { kind: 'admitted', target: pick.target.id, paid } }, this.rng);
    if (step.kind !== 'attempt') this.selector.releaseProbes(pick, now);
    return { step, pick };
  }

  /** The client's answer after an attempt, or undefined to go on (the target excluded until the next wait if it failed). */
  private answerOf(pick: Pick, result: AttemptResult, state: RequestState): RouteResult | undefined {
    if (result.kind === 'unsent')
      return failWith(
        400,
        'invalid_request',
        'invalid_request_error',
        `The request could not be translated for ${pick.target.provider}: ${result.message}.`,
        state.attempts,
      );
    if (result.kind !== 'failed') return this.success(pick, result, state);
    if (result.outcome.kind === 'client_error')
      return failWith(
        result.outcome.status,
        'upstream_rejected_request',
        'invalid_request_error',
        `The provider rejected the request: ${result.outcome.message}`,
        state.attempts,
      );
    if (result.outcome.kind !== 'aborted') (state.excluded ??= new Set()).add(pick.target.id);
    return undefined;
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
      admissionTokens: this.selector.admissionTokens(target, state),
    });
    if (result.kind === 'unsent') {
      // No request left: the probe leases go back untested and the provider is not blamed.
      this.selector.releaseProbes(pick, this.clock.now());
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
      cacheAffinity: this.affinity ? this.selector.affinityCounts : undefined,
    });
  }

  /** Requests being routed and waiting now, the most that waited at once, and those shed by reason. */
  admission(): AdmissionView {
    return this.gate.view();
  }

  /** Each target's circuits, capacity, statistics, usage and score, for the state view. */
  state(): unknown {
    const now = this.clock.now();
    return renderStateView({
      now,
      // A nominal request: ~1,000 input tokens, 500 output.
      ranking: this.selector.rank(this.targets, 1003, 500, now),
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
