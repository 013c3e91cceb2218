/** Retry-budget settings. */
export interface RetryBudgetOptions {
  /** Extra attempts allowed as a share of requests in the window. */
  ratio: number;
  /** Extra attempts always allowed per window, so low traffic can still fail over. */
  minPerWindow: number;
  windowMs: number;
}

const BUCKETS = 10;

/**
 * Keeps extra upstream attempts (failovers and retries) a bounded share of traffic, so that an
 * outage cannot turn into a retry storm: Envoy's retry budget, over a sliding window of ten
 * buckets (constant memory at any rate). In a fleet the counts are the fleet's: each replica adds
 * the others' counts as they report them, so the budget bounds the fleet's traffic as a whole.
 * @see https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/cluster/v3/circuit_breaker.proto
 */
export class RetryBudget {
  private readonly requests = new Float64Array(BUCKETS);
  private readonly extras = new Float64Array(BUCKETS);
  private readonly starts = new Float64Array(BUCKETS).fill(-Infinity);
  /** This replica's counts not yet reported to the fleet, by bucket (the same ten slots). */
  private readonly newRequests = new Float64Array(BUCKETS);
  private readonly newExtras = new Float64Array(BUCKETS);
  private readonly bucketMs: number;

  constructor(private readonly o: RetryBudgetOptions) {
    this.bucketMs = o.windowMs / BUCKETS;
  }

  private bucket(now: number): number {
    const start = Math.floor(now / this.bucketMs) * this.bucketMs;
    const i = Math.floor(now / this.bucketMs) % BUCKETS;
    if (this.starts[i] !== start) {
      this.starts[i] = start;
      this.requests[i] = 0;
      this.extras[i] = 0;
      this.newRequests[i] = 0;
      this.newExtras[i] = 0;
    }
    return i;
  }

  /** Counts not yet reported, as [bucket start, requests, extras]; they are reported once. */
  takeCounts(): Array<[number, number, number]> {
    const out: Array<[number, number, number]> = [];
    for (let i = 0; i < BUCKETS; i++) {
      if (this.newRequests[i] === 0 && this.newExtras[i] === 0) continue;
      out.push([this.starts[i]!, this.newRequests[i]!, this.newExtras[i]!]);
      this.newRequests[i] = 0;
      this.newExtras[i] = 0;
    }
    return out;
  }

  /** Adds another replica's counts for the bucket starting at `bucketStart` (ignored once out of the window). */
  addRemote(bucketStart: number, requests: number, extras: number): void {
    const i = Math.floor(bucketStart / this.bucketMs) % BUCKETS;
    if (!(this.starts[i]! <= bucketStart)) return;
    if (this.starts[i] !== bucketStart) {
      this.starts[i] = bucketStart;
      this.requests[i] = 0;
      this.extras[i] = 0;
      this.newRequests[i] = 0;
      this.newExtras[i] = 0;
    }
    this.requests[i]! += requests;
    this.extras[i]! += extras;
  }

  private totals(now: number): { requests: number; extras: number } {
    let requests = 0;
    let extras = 0;
    for (let i = 0; i < BUCKETS; i++) {
      if (this.starts[i]! > now - this.o.windowMs) {
        requests += this.requests[i]!;
        extras += this.extras[i]!;
      }
    }
    return { requests, extras };
  }

  /** Counts a client request. */
  onRequest(now: number): void {
    const i = this.bucket(now);
    this.requests[i]!++;
    this.newRequests[i]!++;
  }

  /** Takes one extra attempt from the budget; false when it is spent. */
  tryTake(now: number): boolean {
    const i = this.bucket(now);
    const t = this.totals(now);
    if (t.extras >= this.o.minPerWindow + this.o.ratio * t.requests) return false;
    this.extras[i]!++;
    this.newExtras[i]!++;
    return true;
  }

  /** Extra attempts left in the current window. */
  remaining(now: number): number {
    this.bucket(now);
    const t = this.totals(now);
    return Math.max(0, Math.floor(this.o.minPerWindow + this.o.ratio * t.requests - t.extras));
  }
}
