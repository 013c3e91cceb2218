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

/** A min-heap of pending placements by time. */
class Queue<T extends { at: number }> {
  private readonly items: T[] = [];
  get size(): number {
    return this.items.length;
  }
  push(item: T): void {
    const a = this.items;
    a.push(item);
    for (let i = a.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (a[parent]!.at <= a[i]!.at) break;
      [a[parent], a[i]] = [a[i]!, a[parent]!];
      i = parent;
    }
  }
  pop(): T {
    const a = this.items;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l]!.at < a[m]!.at) m = l;
        if (r < a.length && a[r]!.at < a[m]!.at) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i]!, a[m]!];
        i = m;
      }
    }
    return top;
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
  const runtimes = scenario.providers.map((p, i) => createProviderRuntime(p, i));
  const byId = new Map(runtimes.map((rt) => [rt.id, rt]));
  const queue = new Queue<{ at: number; r: OracleRequest }>();
  for (const r of requests) queue.push({ at: r.sentAt, r });
  let admitted = 0;
  // Each request comes back at most once per millisecond of its deadline, and far fewer in
  // practice; past this the replay is not converging, which is a bug to report, not to hang on.
  let steps = 0;
  const maxSteps = 100_000 + requests.reduce((n, r) => n + Math.max(1, r.latestAt - r.sentAt), 0);
  while (queue.size > 0) {
    if (++steps > maxSteps) throw new Error(`quotaOracle did not converge after ${steps} steps`);
    const { at, r } = queue.pop();
    let soonest = Infinity;
    let placed = false;
    for (const { provider: id, model } of r.targets) {
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
          ? r.tokensIn
          : rule === 'input+max_tokens'
            ? r.tokensIn + r.maxTokens
            : Math.max(r.tokensIn, r.maxTokens);
      const costs: Costs = { requests: 1, tokens, 'input-tokens': r.tokensIn, 'output-tokens': 0, concurrency: 0 };
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
    else if (soonest <= r.latestAt) queue.push({ at: soonest, r });
  }
  return admitted;
}
