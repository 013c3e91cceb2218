import type { AbortLike } from '../../simulator/index.js';

/** Schedules `fire` after `ms` on a simulated timeline; returns its cancel. */
export type SetTimer = (ms: number, fire: () => void) => () => void;

/**
 * A Clock's `sleep` on a simulated timer: resolves when the timer fires, rejects with the
 * signal's reason (and cancels the timer) when the signal aborts first.
 */
export function timerSleep(setTimer: SetTimer): (ms: number, signal?: AbortLike) => Promise<void> {
  return (ms, signal) => {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (!(ms > 0)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        cancel();
        reject(signal!.reason);
      };
      const cancel = setTimer(ms, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  };
}
