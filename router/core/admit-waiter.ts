/** What admission knows when a request asks to wait for capacity. */
export interface WaiterFacts {
  /** When the first candidate could be tried, for Retry-After; Infinity when none. */
  availableAt: number;
  /** Requests held waiting for capacity now. */
  waiting: number;
  /** Requests already waiting for the same model name. */
  ahead: number;
  /** Requests the candidates are expected to take between `from` and `to` (Infinity when a limit is unknown). */
  expectedRequests(from: number, to: number): number;
}

/** A 503 with Retry-After at once rather than a wait: too many wait already, or what they wait for is spoken for. */
export type Shed =
  | { kind: 'shed'; reason: 'max_waiting'; retryInMs: number; waiting: number }
  | { kind: 'shed'; reason: 'spoken_for'; retryInMs: number; ahead: number; expected: number };

/** Milliseconds until `at` for a shed request's Retry-After: a second when nothing is known. */
function retryInMs(at: number, now: number): number {
  return Number.isFinite(at) ? Math.max(1000, at - now) : 1000;
}

/**
 * Whether a request may wait from `from` until `to` (its last moment to start an attempt): shed
 * when `maxWaiting` requests wait already, or when the requests already waiting for the same model
 * take all the capacity the providers are expected to have by then. Unknown limits are never
 * spoken for. Undefined when admitted.
 */
export function admitWaiter(
  f: WaiterFacts,
  maxWaiting: number,
  now: number,
  from: number,
  to: number,
): Shed | undefined {
  if (f.waiting >= maxWaiting)
    return { kind: 'shed', reason: 'max_waiting', retryInMs: retryInMs(f.availableAt, now), waiting: f.waiting };
  if (f.ahead === 0) return undefined;
  const expected = f.expectedRequests(from, to);
  if (f.ahead < expected) return undefined;
  return { kind: 'shed', reason: 'spoken_for', retryInMs: retryInMs(f.availableAt, now), ahead: f.ahead, expected };
}
