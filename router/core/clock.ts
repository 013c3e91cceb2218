/** A source of time: epoch milliseconds (fractional) and an abortable sleep. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Calls `fire` after `ms` unless cancelled first; cheaper than a cancelled sleep on hot paths. */
  setTimer?(ms: number, fire: () => void): () => void;
}

const CANCELLED = Symbol('timer-cancelled');

/** Runs `fire` after `ms` on `clock`, returning a cancel function (no exception is created on cancel). */
export function startTimer(clock: Clock, ms: number, fire: () => void): () => void {
  if (clock.setTimer) return clock.setTimer(ms, fire);
  const ac = new AbortController();
  clock.sleep(ms, ac.signal).then(fire, () => {});
  return () => ac.abort(CANCELLED);
}
