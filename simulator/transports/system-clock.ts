import type { AbortLike } from '../core/cancel.js';
import type { Clock } from '../core/clock.js';

function abortReason(signal: AbortLike): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

// setTimeout fires after 1 ms when given more than 2^31−1 ms; longer sleeps are chained.
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** The real clock: `performance` time anchored to the epoch, and `setTimeout` sleeps (of any length). */
export const systemClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  sleep(ms, signal) {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (!(ms > 0)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      let left = ms;
      let timer: ReturnType<typeof setTimeout>;
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortReason(signal!));
      };
      const arm = () => {
        const step = Math.min(left, LONGEST_TIMER_MS);
        left -= step;
        timer = setTimeout(() => {
          if (left > 0) return arm();
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, step);
      };
      arm();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};
