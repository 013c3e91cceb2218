import type { RouterConfig } from './config/schema.js';
import { CacheAffinity } from './core/cache-affinity.js';
import { CapacityBook } from './core/capacity.js';
import { CircuitBook } from './core/circuit-book.js';
import type { Clock } from './core/clock.js';
import type { Shed } from './core/admit-waiter.js';
import { isFreeFailover } from './core/free-failover.js';
import { decideNext, type FailStep, type NextSettings, type WaitStep } from './core/decide-next.js';
import { Ewma } from './core/ewma.js';
import { RetryBudget } from './core/retry-budget.js';
import { createRng, type Rng } from './core/rng.js';
import type { StateStore } from './core/state-store.js';
import { Admission, type AdmissionView } from './engine/admission.js';
import { answerOf, attemptPick, type PickEnv } from './engine/attempt-pick.js';
import { createFleetLink } from './engine/fleet-link.js';
import { Meter } from './engine/meter.js';
import { ModelRoutes } from './engine/model-routes.js';
import { DurationHistogram, renderMetrics } from './engine/metrics.js';
import { loadPrefixHasher, prefixHasherLoaded } from './engine/prefix-hasher.js';
import { prefixKeys } from './engine/prefix-keys.js';
import { requestStateOf, type RequestState, type RouteOptions } from './engine/request-state.js';
import { failed, type RouteResult } from './engine/route-result.js';
import { Selector, type Pick } from './engine/selector.js';
import {
  attemptEnvOf,
  breakerSettingsOf,
  circuitOptionsOf,
  nextSettingsOf,
  retryBudgetOptionsOf,
  selectorSettingsOf,
} from './engine/settings.js';
import { renderStateView } from './engine/state-view.js';
import { systemClock } from './engine/system-clock.js';
import { buildTargets, type TargetRuntime } from './engine/target.js';
import { Wakeup } from './engine/wakeup.js';
import { createStore } from './state/create-store.js';
import type { StoreEvent } from './state/redis-store.js';
import type { Transport } from './transport/transport.js';
import { ResponseItems } from './apis/response-items.js';
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

export type { RouteResult } from './engine/route-result.js';
export type { RouteOptions } from './engine/request-state.js';

/** Selection not run yet: shared by every request's first question of each turn. */
const PENDING = Object.freeze({ kind: 'pending' } as const);

/** A step as the loop acts on it: an attempt carries the target admitted and its probe leases. */
type Step = FailStep | WaitStep | Shed | { kind: 'attempt'; pick: Pick };

/**
 * The reference router: ranks targets on cost, latency, reliability, quality and capacity, keeps
 * circuits per provider and per key, fails over within one request, waits `max(server wait,
 * backoff)` only when nothing else can serve and only if the wait fits the request's one deadline,
 * and never passes a provider's 429 to its client.
 */
export class Router {
  readonly config: RouterConfig;
  readonly targets: readonly TargetRuntime[];
  private readonly routes: ModelRoutes;
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
  private readonly wakeup = new Wakeup();
  /** What sending an attempt uses and updates. */
  private readonly picks: PickEnv;
  /** Requests in flight and waiting, and those shed. */
  private readonly gate = new Admission(this.wakeup);
  private readonly selector: Selector;
  private readonly next: NextSettings;
  /** Where each prompt prefix was last served (cache affinity). */
  private readonly affinity: CacheAffinity | undefined;
  /** The Responses output items returned, for clients' `item_reference`s. */
  readonly responseItems: ResponseItems;

  constructor(config: RouterConfig, deps: RouterDeps) {
    this.config = config;
    this.clock = deps.clock ?? systemClock;
    this.rng = deps.rng ?? createRng(deps.seed ?? 1);
    this.transport = deps.transport ?? createUndiciTransport();
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
    this.budget = new RetryBudget(retryBudgetOptionsOf(config));
    this.store.link(createFleetLink({ capacity: this.capacity, budget: this.budget, meter: this.meter }));
    const built = buildTargets(config, deps.env);
    this.targets = built.targets;
    this.routes = new ModelRoutes(config, built);
    for (const p of config.providers) this.reliability.set(p.id, new Ewma(20));
    const ca = config.cacheAffinity;
    this.affinity = ca.enabled ? new CacheAffinity({ ttlMs: ca.ttl, maxEntries: ca.maxEntries }) : undefined;
    const items = config.server.responseItems;
    this.responseItems = new ResponseItems({ ...items, ttlMs: items.sharedTtl }, this.store.items);
    const books = { circuits: this.circuits, capacity: this.capacity, reliability: this.reliability, rng: this.rng };
    this.selector = new Selector(books, selectorSettingsOf(config));
    this.next = nextSettingsOf(config);
    const { clock, transport, capacity } = this;
    this.picks = {
      attempt: attemptEnvOf(
        config,
        { clock, transport, capacity },
        this.targets.map((t) => t.apiKey),
      ),
      learning: {
        circuits: this.circuits,
        breaker: breakerSettingsOf(config),
        reliability: this.reliability,
        meter: this.meter,
      },
      selector: this.selector,
      wakeup: this.wakeup,
      affinity: this.affinity,
    };
  }

  /** The targets a requested model name stands for: auto, an alias, `provider/model`, or a model name. */
  resolve(model: string, api: 'chat' | 'embeddings' = 'chat'): TargetRuntime[] {
    return this.routes.resolve(model, api);
  }

  /** The model names a client can ask for, as `GET /v1/models` lists them. */
  modelNames(): string[] {
    return this.routes.names();
  }

  /** Routes one chat request (the parsed JSON body) to completion, failover included. */
  async route(body: unknown, options: RouteOptions = {}): Promise<RouteResult> {
    const started = this.clock.now();
    let result: RouteResult;
    if (this.gate.inFlight >= this.config.admission.maxInFlight) {
      result = this.gate.shedInFlight();
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
    const arrived = requestStateOf(body, options, this.routes, this.config.deadline.default, now);
    if (!('candidates' in arrived)) return arrived;
    const { state, candidates } = arrived;
    const minTokens = this.config.cacheAffinity.minTokens;
    if (this.affinity && state.inputTokens >= minTokens) {
      if (!prefixHasherLoaded()) await loadPrefixHasher();
      state.prefixes = prefixKeys(state.req, minTokens);
      state.warm = this.affinity.lookup(state.prefixes, now);
    }
    this.budget.onRequest(now);
    for (;;) {
      const t = this.clock.now();
      const step = this.decide(state, candidates, t);
      if (step.kind === 'attempt') {
        const { target } = step.pick;
        const canFailOver = candidates.some((c) => c !== target && !state.excluded?.has(c.id));
        const result = await attemptPick(this.picks, step.pick, state, canFailOver);
        const answer = answerOf(this.picks, step.pick, result, state);
        if (answer) return answer;
        continue;
      }
      if (step.kind === 'shed') return this.gate.shedWaiter(step, state.attempts);
      if (step.kind !== 'wait') {
        const earliest = () => this.selector.earliestAvailable(candidates, t);
        return failed(step.failure, state.deadline, state.attempts, earliest, t);
      }
      if (state.excluded?.size) state.excludedUntil ??= t + step.waitMs;
      const model = state.req.model;
      this.gate.startWaiting(model);
      let elapsed: boolean;
      try {
        elapsed = await this.wakeup.sleep(this.clock, step.waitMs, state.signal, state.deadline.at);
      } finally {
        this.gate.stopWaiting(model);
      }
      // A waiter woken early by others' answers must not keep its failed targets out for ever.
      if (elapsed || (state.excludedUntil !== undefined && this.clock.now() >= state.excludedUntil)) {
        state.excluded?.clear();
        state.excludedUntil = undefined;
      }
    }
  }

  /**
   * The request's next step at `now` as `decideNext` decides it, running selection when it asks
   * (after the checks that end a request, before the backoff's draw: the Rng's order) and taking
   * an extra attempt from the retry budget once a target is admitted.
   */
  private decide(state: RequestState, candidates: TargetRuntime[], now: number): Step {
    const input = {
      now,
      deadline: state.deadline,
      aborted: state.signal.aborted,
      attempts: state.attempts.length,
      settings: this.next,
      selection: PENDING,
    };
    const first = decideNext(input, this.rng);
    if (first.kind !== 'select') return first;
    const pick = this.selector.select(candidates, state, now);
    if (!pick) {
      const facts = this.selector.waitFacts(
        candidates,
        state,
        now,
        this.wakeup.waiting,
        this.gate.ahead(state.req.model),
      );
      return decideNext({ ...input, selection: { kind: 'none', facts } }, this.rng);
    }
    const paid = !first.extra || isFreeFailover(state.attempts.at(-1), pick.target.id) || this.budget.tryTake(now);
    const step = decideNext({ ...input, selection: { kind: 'admitted', target: pick.target.id, paid } }, this.rng);
    if (step.kind === 'attempt') return { kind: 'attempt', pick };
    this.selector.releaseProbes(pick, now);
    return step;
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
