import type { SharedLimit, SharedLimits } from './fleet.js';
import type { LimitSignal, Signals } from './signals.js';

interface Limit {
  limit: number | undefined;
  remaining: number;
  resetAt: number;
  observedAt: number;
}

/** What the router knows and holds of one target's limits. */
export interface CapacityEntry {
  requests?: Limit;
  tokens?: Limit;
  refill: Signals['refill'];
  /** Requests sent and not yet answered. */
  inFlight: number;
  /** Estimated tokens of those requests. */
  reservedTokens: number;
  /** Requests the other replicas of the fleet have in flight, and their tokens (as they last said). */
  remoteInFlight: number;
  remoteTokens: number;
}

/** A target's capacity as the state view shows it. */
export interface CapacityView {
  requestsRemaining: number | null;
  tokensRemaining: number | null;
  inFlight: number;
  /** In flight across the fleet (this replica's and what the others last said). */
  fleetInFlight: number;
  availableAt: number;
  headroom: number;
}

// A little slack on estimated refills, so that rounding in the vendor's own numbers never
// puts a request a few milliseconds early.
const REFILL_SAFETY = 1.05;

function toLimit(
  s: LimitSignal | undefined,
  now: number,
  previous: Limit | undefined,
  maxResetInMs: number,
): Limit | undefined {
  if (!s || s.remaining === undefined) return previous;
  // A reset a year away (a hostile or broken header) is held to the longest wait honoured anywhere.
  const resetAt = Math.min(s.resetAt ?? now, now + maxResetInMs);
  return { limit: s.limit ?? previous?.limit, remaining: s.remaining, resetAt, observedAt: now };
}

const toShared = (l: Limit | undefined): SharedLimit | undefined =>
  l && { limit: l.limit ?? null, remaining: l.remaining, resetAt: l.resetAt, observedAt: l.observedAt };

// Another replica's observation replaces ours only if it is newer.
function newer(mine: Limit | undefined, theirs: SharedLimit | undefined): Limit | undefined {
  if (!theirs || (mine && mine.observedAt >= theirs.observedAt)) return mine;
  return {
    limit: theirs.limit ?? undefined,
    remaining: theirs.remaining,
    resetAt: theirs.resetAt,
    observedAt: theirs.observedAt,
  };
}

function estimate(l: Limit, refill: Signals['refill'], now: number): number {
  if (now >= l.resetAt) return l.limit ?? Infinity;
  if (refill !== 'continuous' || l.limit === undefined || l.resetAt <= l.observedAt) return l.remaining;
  const rate = (l.limit - l.remaining) / (l.resetAt - l.observedAt);
  return Math.min(l.limit, l.remaining + ((now - l.observedAt) * rate) / REFILL_SAFETY);
}

// A limit's share left once `held` is taken, in [0, 1]; 1 (no bound) when the limit is unknown.
function share(l: Limit | undefined, refill: Signals['refill'], held: number, now: number): number {
  if (!l || l.limit === undefined || l.limit <= 0) return 1;
  return Math.max(0, (estimate(l, refill, now) - held) / l.limit);
}

function whenAvailable(l: Limit, refill: Signals['refill'], need: number, now: number): number {
  if (estimate(l, refill, now) >= need) return now;
  if (refill !== 'continuous' || l.limit === undefined || l.resetAt <= l.observedAt) return l.resetAt;
  const rate = (l.limit - l.remaining) / (l.resetAt - l.observedAt);
  if (!(rate > 0)) return l.resetAt;
  return Math.min(l.resetAt, l.observedAt + ((need - l.remaining) / rate) * REFILL_SAFETY);
}

function expectedUnits(l: Limit, refill: Signals['refill'], from: number, to: number): number {
  const continuous = refill === 'continuous' && l.limit !== undefined && l.resetAt > l.observedAt;
  if (!continuous) return to >= l.resetAt ? Infinity : l.remaining;
  const rate = (l.limit! - l.remaining) / (l.resetAt - l.observedAt);
  const atFrom = Math.min(l.limit!, l.remaining + Math.max(0, from - l.observedAt) * rate);
  return atFrom + (to - from) * rate;
}

/**
 * Capacity per target, from the vendors' own remaining counts and reset times, minus what the
 * router has in flight, so that a target known to be empty until T is not tried before T. Counts
 * already in a response are not told apart from in-flight ones, which errs on the safe side.
 */
export class CapacityBook {
  private readonly entries = new Map<string, CapacityEntry>();
  /** Targets whose limits this replica observed since the fleet last heard. */
  private readonly observed = new Set<string>();
  private heldChanged = false;
  private readonly maxResetInMs: number;

  /** `maxResetInMs`: the furthest a learned reset may lie ahead (the breaker's `maxOpenFor`). */
  constructor(options: { maxResetInMs?: number } = {}) {
    this.maxResetInMs = options.maxResetInMs ?? Infinity;
  }

  private entry(target: string): CapacityEntry {
    let e = this.entries.get(target);
    if (!e) {
      e = { refill: 'unknown', inFlight: 0, reservedTokens: 0, remoteInFlight: 0, remoteTokens: 0 };
      this.entries.set(target, e);
    }
    return e;
  }

  /** Takes in a response's signals. */
  observe(target: string, s: Signals, now: number): void {
    const e = this.entry(target);
    e.refill = s.refill;
    e.requests = toLimit(s.requests, now, e.requests, this.maxResetInMs);
    e.tokens = toLimit(s.tokens, now, e.tokens, this.maxResetInMs);
    if (s.requests?.remaining !== undefined || s.tokens?.remaining !== undefined) this.observed.add(target);
  }

  /** Holds one request and its estimated tokens while it is in flight. */
  reserve(target: string, tokens: number): void {
    const e = this.entry(target);
    e.inFlight++;
    e.reservedTokens += tokens;
    this.heldChanged = true;
  }

  release(target: string, tokens: number): void {
    const e = this.entry(target);
    e.inFlight = Math.max(0, e.inFlight - 1);
    e.reservedTokens = Math.max(0, e.reservedTokens - tokens);
    this.heldChanged = true;
  }

  /** The limits observed since the last call, for the fleet. */
  takeObserved(): Array<[string, SharedLimits]> {
    const out: Array<[string, SharedLimits]> = [];
    for (const target of this.observed) {
      const e = this.entries.get(target)!;
      out.push([target, { requests: toShared(e.requests), tokens: toShared(e.tokens), refill: e.refill }]);
    }
    this.observed.clear();
    return out;
  }

  /** Another replica's observation of a target's limits; kept where it is newer than ours. */
  adopt(target: string, shared: SharedLimits): void {
    const e = this.entry(target);
    const requests = newer(e.requests, shared.requests);
    const tokens = newer(e.tokens, shared.tokens);
    if (requests !== e.requests || tokens !== e.tokens) e.refill = shared.refill;
    e.requests = requests;
    e.tokens = tokens;
  }

  /** This replica's requests in flight per target (whole), when they changed since the last call or `always`. */
  takeHeld(always: boolean): Array<[string, number, number]> | undefined {
    if (!this.heldChanged && !always) return undefined;
    this.heldChanged = false;
    const out: Array<[string, number, number]> = [];
    for (const [target, e] of this.entries) if (e.inFlight > 0) out.push([target, e.inFlight, e.reservedTokens]);
    return out;
  }

  /** What the other replicas hold in flight at `target`, summed. */
  setRemoteHeld(target: string, requests: number, tokens: number): void {
    const e = this.entry(target);
    e.remoteInFlight = requests;
    e.remoteTokens = tokens;
  }

  /** The earliest time a request costing `tokens` fits, by what the vendor last said. */
  availableAt(target: string, tokens: number, now: number): number {
    const e = this.entries.get(target);
    if (!e) return now;
    let at = now;
    if (e.requests) at = Math.max(at, whenAvailable(e.requests, e.refill, 1 + e.inFlight + e.remoteInFlight, now));
    if (e.tokens) at = Math.max(at, whenAvailable(e.tokens, e.refill, tokens + e.reservedTokens + e.remoteTokens, now));
    return at;
  }

  /**
   * How many more requests of `tokens` each the target should take between `from` and `to`, by
   * what the vendor last said, less what is in flight; optimistic (no safety margin), and
   * Infinity when its limits are unknown or a window resets in between (its next size is unknown).
   */
  expectedRequests(target: string, tokens: number, from: number, to: number): number {
    const e = this.entries.get(target);
    if (!e) return Infinity;
    if (to <= from) return 0;
    let n = Infinity;
    if (e.requests) n = Math.min(n, expectedUnits(e.requests, e.refill, from, to) - e.inFlight);
    if (e.tokens && tokens > 0)
      n = Math.min(n, (expectedUnits(e.tokens, e.refill, from, to) - e.reservedTokens) / tokens);
    return Math.max(0, n);
  }

  /** Share of capacity left in [0, 1]: 1 when nothing is known. */
  headroom(target: string, now: number): number {
    const e = this.entries.get(target);
    if (!e) return 1;
    // Runs for every candidate of every request: no pairs built to loop over.
    const h = Math.min(1, share(e.requests, e.refill, e.inFlight + e.remoteInFlight, now));
    return Math.min(h, share(e.tokens, e.refill, e.reservedTokens + e.remoteTokens, now));
  }

  view(target: string, now: number): CapacityView {
    const e = this.entries.get(target);
    const est = (l: Limit | undefined) => (l && e ? Math.floor(estimate(l, e.refill, now)) : null);
    return {
      requestsRemaining: est(e?.requests),
      tokensRemaining: est(e?.tokens),
      inFlight: e?.inFlight ?? 0,
      fleetInFlight: e ? e.inFlight + e.remoteInFlight : 0,
      availableAt: this.availableAt(target, 0, now),
      headroom: this.headroom(target, now),
    };
  }
}
