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
 * buckets (constant memory at any rate).
 * @see https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/cluster/v3/circuit_breaker.proto
 */
export class RetryBudget {
  private readonly requests = new Float64Array(BUCKETS);
  private readonly extras = new Float64Array(BUCKETS);
  private readonly starts = new Float64Array(BUCKETS).fill(-Infinity);
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
    }
    return i;
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
    this.requests[this.bucket(now)]!++;
  }

  /** Takes one extra attempt from the budget; false when it is spent. */
  tryTake(now: number): boolean {
    const i = this.bucket(now);
    const t = this.totals(now);
    if (t.extras >= this.o.minPerWindow + this.o.ratio * t.requests) return false;
    this.extras[i]!++;
    return true;
  }

  /** Extra attempts left in the current window. */
  remaining(now: number): number {
    this.bucket(now);
    const t = this.totals(now);
    return Math.max(0, Math.floor(this.o.minPerWindow + this.o.ratio * t.requests - t.extras));
  }
}
