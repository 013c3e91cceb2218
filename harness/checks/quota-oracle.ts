import { cachePolicyFor, createProviderRuntime } from '../../simulator/index.js';
import type { Costs, ProviderRuntime } from '../../simulator/index.js';
import type { RunScenario } from '../scenario/schema.js';
import { containing, type Intervals } from './intervals.js';
import { finishSliced, type Sliced } from './sliced.js';

/** A client request as the oracle sees it. */
export interface OracleRequest {
  sentAt: number;
  /** The latest moment an attempt could still be answered in time. */
  latestAt: number;
  /** Provider models that could serve it. */
  targets: ReadonlyArray<{ provider: string; model: string }>;
  tokensIn: number;
  maxTokens: number;
  /** The conversation whose cacheable prefix (`quotaOracle`'s `prefix`) it opens with. */
  conversation?: number;
}

// Time must move on each retry: at epoch-millisecond magnitudes a wait of 2.7e-11 ms (a bucket a
// hair short of one token) adds nothing, `at + wait === at`, and the request would come back at
// the same instant for ever. No quota is finer than a millisecond.
const MIN_STEP_MS = 1;

/** End of the blocked interval containing `t`, or `t` itself. */
function after(blocked: Intervals, t: number): number {
  return containing(blocked, t)?.[1] ?? t;
}

/** What a request takes at admission, as the simulator charges it (its quota stage's `costsOf`). */
function costsOf(rule: ProviderRuntime['accounting']['tokenAdmission'], input: number, maxTokens: number): Costs {
  const tokens =
    rule === 'input' ? input : rule === 'input+max_tokens' ? input + maxTokens : Math.max(input, maxTokens);
  return { requests: 1, tokens, 'input-tokens': input, 'output-tokens': 0, concurrency: 0 };
}

/**
 * The best prompt caching a router could have had: each conversation's prefix warm in an
 * organisation from the first request placed there until its TTL lapses, read free of input
 * limits where the vendor does not count cache reads (docs/vendor-facts.md, "Prompt caching").
 */
class OracleCaches {
  private readonly byTarget = new Map<string, TargetCache | null>();
  constructor(private readonly prefix: OraclePrefix | undefined) {}
  /** The cache of one provider model, or undefined where reads would save nothing. */
  of(rt: ProviderRuntime, model: string): TargetCache | undefined {
    const k = `${rt.id}\u0000${model}`;
    let c = this.byTarget.get(k);
    if (c === undefined) {
      const policy = this.prefix && cachePolicyFor(rt.profile.id, model, rt.options);
      const saves =
        policy &&
        !policy.readsCountTowardLimits &&
        (policy.mode === 'automatic' || this.prefix!.cacheControl) &&
        this.prefix!.tokens >= policy.minTokens;
      c = saves ? new TargetCache(this.prefix!.tokens, policy.ttlMs) : null;
      this.byTarget.set(k, c);
    }
    return c ?? undefined;
  }
}

/** One provider model's warm prefixes, by organisation and conversation: when each expires. */
class TargetCache {
  private readonly expires = new Map<string, number>();
  constructor(
    private readonly tokens: number,
    private readonly ttlMs: number,
  ) {}
  read(org: string, conversation: number, at: number): number {
    return (this.expires.get(`${org}\u0000${conversation}`) ?? -Infinity) > at ? this.tokens : 0;
  }
  write(org: string, conversation: number, at: number): void {
    this.expires.set(`${org}\u0000${conversation}`, at + this.ttlMs);
  }
  warmFirst<K extends { id: string; org?: string | undefined }>(
    keys: readonly K[],
    conversation: number,
    at: number,
  ): K[] {
    const warm = keys.filter((k) => this.read(k.org ?? k.id, conversation, at) > 0);
    return warm.length === 0 ? [...keys] : [...warm, ...keys.filter((k) => !warm.includes(k))];
  }
}

/**
 * The requests as columns, in send order: what a day's million requests cost the oracle is a few
 * numbers each, not an object (and a list of targets) apiece. `targets[i]` indexes `targetLists`.
 */
export interface OracleColumns {
  length: number;
  sentAt: Float64Array;
  latestAt: Float64Array;
  tokensIn: Float64Array;
  maxTokens: Float64Array;
  targets: Uint32Array;
  targetLists: ReadonlyArray<OracleRequest['targets']>;
  /**
   * The conversation each request opens (its system prompt a cacheable prefix), -1 for none, and
   * how that prefix may be cached; absent: no request shares a prefix.
   */
  conversation?: Int32Array;
  prefix?: OraclePrefix;
}

/** The prefix a load's conversations share: its tokens, and whether it carries a cache breakpoint. */
export interface OraclePrefix {
  tokens: number;
  cacheControl: boolean;
}

/**
 * A min-heap of pending placements (a request's index and when it comes back), in two parallel
 * arrays; each request is in it at most once, so it never holds more than the requests.
 */
class Queue {
  private readonly at: Float64Array;
  private readonly request: Uint32Array;
  size = 0;
  constructor(capacity: number) {
    this.at = new Float64Array(capacity);
    this.request = new Uint32Array(capacity);
  }
  push(at: number, request: number): void {
    const a = this.at;
    const q = this.request;
    let i = this.size++;
    a[i] = at;
    q[i] = request;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent]! <= a[i]!) break;
      this.swap(parent, i);
      i = parent;
    }
  }
  /** The soonest placement's time (read before `pop`). */
  get topAt(): number {
    return this.at[0]!;
  }
  /** Removes the soonest placement and returns its request. */
  pop(): number {
    const a = this.at;
    const top = this.request[0]!;
    const n = --this.size;
    if (n > 0) {
      a[0] = a[n]!;
      this.request[0] = this.request[n]!;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < n && a[l]! < a[m]!) m = l;
        if (r < n && a[r]! < a[m]!) m = r;
        if (m === i) break;
        this.swap(m, i);
        i = m;
      }
    }
    return top;
  }
  private swap(i: number, j: number): void {
    const a = this.at;
    const q = this.request;
    const t = a[i]!;
    a[i] = a[j]!;
    a[j] = t;
    const u = q[i]!;
    q[i] = q[j]!;
    q[j] = u;
  }
}

/**
 * How many of `requests` the providers' own quotas could have admitted in time: an event-driven
 * replay on fresh copies of the scenario's quotas, where each request, at its send time, takes
 * the first key that admits it, or comes back when the soonest key would (if that is before its
 * deadline), skipping times a fault blocked the provider. Time only moves forward, so the quota
 * meters stay exact. No router can serve more, so goodput is bounded by the world's capacity
 * rather than by whether some capacity existed. Concurrency limits and output tokens charged
 * after the fact are left out, which errs towards more capacity.
 */
export function quotaOracle(
  scenario: RunScenario,
  requests: readonly OracleRequest[],
  blocked: ReadonlyMap<string, Intervals>,
  prefix?: OraclePrefix,
  giveUp?: () => boolean,
): number | undefined {
  return quotaOracleColumns(scenario, oracleColumns(requests, prefix), blocked, giveUp);
}

/** `requests` as the columns the replay reads (see `OracleColumns`), each its own target list. */
export function oracleColumns(requests: readonly OracleRequest[], prefix?: OraclePrefix): OracleColumns {
  return {
    length: requests.length,
    sentAt: Float64Array.from(requests, (r) => r.sentAt),
    latestAt: Float64Array.from(requests, (r) => r.latestAt),
    tokensIn: Float64Array.from(requests, (r) => r.tokensIn),
    maxTokens: Float64Array.from(requests, (r) => r.maxTokens),
    targets: Uint32Array.from(requests, (_, i) => i),
    targetLists: requests.map((r) => r.targets),
    ...(prefix ? { prefix, conversation: Int32Array.from(requests, (r) => r.conversation ?? -1) } : {}),
  };
}

/** Replay steps in a slice (between two asks of `giveUp`): rare enough to cost nothing, often enough to stop within milliseconds. */
const SLICE_STEPS = 4096;

/**
 * `quotaOracle` over requests kept as columns (see `OracleColumns`). The replay can take
 * minutes (a million requests waiting on a quota of one a millisecond come back every
 * millisecond of their deadlines), all of it synchronous here: `giveUp`, asked every few
 * thousand steps, stops it short (a stopped run is judged in a second), and then no bound is
 * known: undefined. `replayQuotas` is the same replay in slices, for a judge that lets signals in.
 */
export function quotaOracleColumns(
  scenario: RunScenario,
  requests: OracleColumns,
  blocked: ReadonlyMap<string, Intervals>,
  giveUp?: () => boolean,
): number | undefined {
  return finishSliced(replayQuotas(scenario, requests, blocked), giveUp);
}

/**
 * The replay of `quotaOracleColumns`, yielding every few thousand steps (see `Sliced`); asked to
 * stop, it returns undefined (no bound known).
 */
export function* replayQuotas(
  scenario: RunScenario,
  requests: OracleColumns,
  blocked: ReadonlyMap<string, Intervals>,
): Sliced<number | undefined> {
  const runtimes = scenario.providers.map((p, i) => createProviderRuntime(p, i));
  const byId = new Map(runtimes.map((rt) => [rt.id, rt]));
  const queue = new Queue(requests.length);
  const caches = new OracleCaches(requests.prefix);
  for (let i = 0; i < requests.length; i++) queue.push(requests.sentAt[i]!, i);
  let admitted = 0;
  // Each request comes back at most once per millisecond of its deadline, and far fewer in
  // practice; past this the replay is not converging, which is a bug to report, not to hang on.
  let steps = 0;
  let deadlines = 0;
  for (let i = 0; i < requests.length; i++) deadlines += Math.max(1, requests.latestAt[i]! - requests.sentAt[i]!);
  const maxSteps = 100_000 + deadlines;
  while (queue.size > 0) {
    if (++steps > maxSteps) throw new Error(`quotaOracle did not converge after ${steps} steps`);
    if (steps % SLICE_STEPS === 0 && (yield) === true) return undefined;
    const at = queue.topAt;
    const i = queue.pop();
    const tokensIn = requests.tokensIn[i]!;
    const maxTokens = requests.maxTokens[i]!;
    let soonest = Infinity;
    let placed = false;
    for (const { provider: id, model } of requests.targetLists[requests.targets[i]!]!) {
      const rt = byId.get(id);
      if (!rt) continue;
      const free = after(blocked.get(id) ?? [], at);
      if (free > at) {
        soonest = Math.min(soonest, free);
        continue;
      }
      const costs = costsOf(rt.accounting.tokenAdmission, tokensIn, maxTokens);
      const conversation = requests.conversation?.[i] ?? -1;
      const cached = conversation < 0 ? undefined : caches.of(rt, model);
      // Keys whose organisation holds this conversation's prefix first: there it costs the least.
      for (const k of cached ? cached.warmFirst(rt.spec.keys, conversation, at) : rt.spec.keys) {
        const caller = { keyId: k.id, org: k.org ?? k.id };
        const read = cached?.read(caller.org, conversation, at) ?? 0;
        const cost = read > 0 ? costsOf(rt.accounting.tokenAdmission, Math.max(0, tokensIn - read), maxTokens) : costs;
        if (rt.quota.admit(caller, model, cost, at).ok) {
          cached?.write(caller.org, conversation, at);
          placed = true;
          break;
        }
        const wait = rt.quota.waitFor(rt.quota.bucketsFor(caller, model, at), cost, at);
        if (wait > 0) soonest = Math.min(soonest, at + Math.max(wait, MIN_STEP_MS));
      }
      if (placed) break;
    }
    if (placed) admitted++;
    else if (soonest <= requests.latestAt[i]!) queue.push(soonest, i);
  }
  return admitted;
}
