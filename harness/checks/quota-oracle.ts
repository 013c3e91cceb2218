import { createProviderRuntime } from '../../simulator/index.js';
import type { Costs } from '../../simulator/index.js';
import type { RunScenario } from '../scenario/schema.js';
import { containing, type Intervals } from './intervals.js';

/** A client request as the oracle sees it. */
export interface OracleRequest {
  sentAt: number;
  /** The latest moment an attempt could still be answered in time. */
  latestAt: number;
  /** Provider models that could serve it. */
  targets: ReadonlyArray<{ provider: string; model: string }>;
  tokensIn: number;
  maxTokens: number;
}

// Time must move on each retry: at epoch-millisecond magnitudes a wait of 2.7e-11 ms (a bucket a
// hair short of one token) adds nothing, `at + wait === at`, and the request would come back at
// the same instant for ever. No quota is finer than a millisecond.
const MIN_STEP_MS = 1;

/** End of the blocked interval containing `t`, or `t` itself. */
function after(blocked: Intervals, t: number): number {
  return containing(blocked, t)?.[1] ?? t;
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
): number {
  const n = requests.length;
  const columns: OracleColumns = {
    length: n,
    sentAt: Float64Array.from(requests, (r) => r.sentAt),
    latestAt: Float64Array.from(requests, (r) => r.latestAt),
    tokensIn: Float64Array.from(requests, (r) => r.tokensIn),
    maxTokens: Float64Array.from(requests, (r) => r.maxTokens),
    targets: Uint32Array.from(requests, (_, i) => i),
    targetLists: requests.map((r) => r.targets),
  };
  return quotaOracleColumns(scenario, columns, blocked);
}

/** `quotaOracle` over requests kept as columns (see `OracleColumns`). */
export function quotaOracleColumns(
  scenario: RunScenario,
  requests: OracleColumns,
  blocked: ReadonlyMap<string, Intervals>,
): number {
  const runtimes = scenario.providers.map((p, i) => createProviderRuntime(p, i));
  const byId = new Map(runtimes.map((rt) => [rt.id, rt]));
  const queue = new Queue(requests.length);
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
      const rule = rt.accounting.tokenAdmission;
      const tokens =
        rule === 'input'
          ? tokensIn
          : rule === 'input+max_tokens'
            ? tokensIn + maxTokens
            : Math.max(tokensIn, maxTokens);
      const costs: Costs = { requests: 1, tokens, 'input-tokens': tokensIn, 'output-tokens': 0, concurrency: 0 };
      for (const k of rt.spec.keys) {
        const caller = { keyId: k.id, org: k.org ?? k.id };
        if (rt.quota.admit(caller, model, costs, at).ok) {
          placed = true;
          break;
        }
        const wait = rt.quota.waitFor(rt.quota.bucketsFor(caller, model, at), costs, at);
        if (wait > 0) soonest = Math.min(soonest, at + Math.max(wait, MIN_STEP_MS));
      }
      if (placed) break;
    }
    if (placed) admitted++;
    else if (soonest <= requests.latestAt[i]!) queue.push(soonest, i);
  }
  return admitted;
}
