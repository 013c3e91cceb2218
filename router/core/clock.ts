/** A source of time: epoch milliseconds (fractional) and an abortable sleep. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  sleep(ms, signal) {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (!(ms > 0)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortReason(signal!));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};
