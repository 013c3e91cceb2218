import type { Clock } from '../core/clock.js';

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

// setTimeout fires after 1 ms when given more than 2^31−1 ms: longer timers are chained.
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** The real clock; timers of any length (a wait of 30 days is not a wait of 1 ms). */
export const systemClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimer(ms, fire) {
    if (ms <= LONGEST_TIMER_MS) {
      const t = setTimeout(fire, Math.max(0, ms));
      return () => clearTimeout(t);
    }
    let left = ms;
    let t: ReturnType<typeof setTimeout>;
    const arm = () => {
      const step = Math.min(left, LONGEST_TIMER_MS);
      left -= step;
      t = setTimeout(() => (left > 0 ? arm() : fire()), step);
    };
    arm();
    return () => clearTimeout(t);
  },
  sleep(ms, signal) {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (!(ms > 0)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        cancel();
        reject(abortReason(signal!));
      };
      const cancel = systemClock.setTimer!(ms, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};
