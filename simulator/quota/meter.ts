/** What a limit counts. */
export type Metric = 'requests' | 'tokens' | 'input-tokens' | 'output-tokens' | 'concurrency';

/** How a windowed limit replenishes. */
export type Algorithm = 'token-bucket' | 'fixed-window' | 'sliding-window';

/** One limit, normalised from a scenario: `limit` units per `windowMs`, metered by `algorithm`. */
export interface LimitSpec {
  metric: Metric;
  limit: number;
  /** Window length; 0 for concurrency. */
  windowMs: number;
  algorithm: Algorithm;
  /** Returns the start of the fixed window containing `now` (defaults to epoch-aligned windows). */
  windowStart?: (now: number) => number;
}

/**
 * The arithmetic of one replenishment algorithm. States are small mutable records owned by a
 * QuotaSet; every method takes `now` and does no I/O.
 */
export interface Meter<S> {
  create(spec: LimitSpec, now: number): S;
  /** Units available now; negative while in debt (output charged after the fact). */
  available(state: S, spec: LimitSpec, now: number): number;
  /** Milliseconds until `cost` units could be admitted; Infinity if never. */
  waitMs(state: S, spec: LimitSpec, cost: number, now: number): number;
  /** Milliseconds until the limit is back to its initial (full) state. */
  resetInMs(state: S, spec: LimitSpec, now: number): number;
  /** Takes `cost` units (may go into debt). */
  consume(state: S, spec: LimitSpec, cost: number, now: number): void;
}
