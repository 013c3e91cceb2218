/**
 * What code that can be cancelled reads: whether and why, and a call when it happens. An
 * AbortSignal has this shape, and so do `Cancel` and `NEVER_CANCELLED`.
 */
export interface AbortLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A signal that never aborts: listening to it costs nothing and holds nothing (a request with no
 * client signal would otherwise gather one listener per attempt and wait on one shared object).
 */
export const NEVER_CANCELLED: AbortLike = Object.freeze({
  aborted: false,
  reason: undefined,
  addEventListener() {},
  removeEventListener() {},
});

/**
 * An AbortController and its signal in one plain object, for cancellations that stay inside the
 * process: a Node AbortSignal is an EventTarget, costly to make, listen to and collect once per
 * attempt of a million. As a Node AbortSignal does, `abort` runs the listeners synchronously, in
 * the order they were added, once: one removed while they run is skipped, one added while they run
 * runs too, one added afterwards never runs.
 */
export class Cancel implements AbortLike {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<(() => void) | null> | undefined = undefined;

  /** Aborts with `reason` (an AbortError when none is given); later calls do nothing. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    const ls = this.listeners;
    if (!ls) return;
    // `ls.length` read each time round: a listener added by another while they run runs too.
    for (let i = 0; i < ls.length; i++) {
      const listener = ls[i];
      if (!listener) continue;
      try {
        listener();
      } catch (error) {
        // As an EventTarget reports a listener's exception: uncaught, and the other listeners still run.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    this.listeners = undefined;
  }

  /** Calls `listener` when aborted (the type is always `'abort'`); a listener already added is not added twice. */
  addEventListener(_type: 'abort', listener: () => void): void {
    // Once aborted, the list is there only while `abort` runs it.
    if (this.aborted && !this.listeners) return;
    const ls = (this.listeners ??= []);
    if (!ls.includes(listener)) ls.push(listener);
  }

  /** Stops calling `listener`, even while the abort is running the listeners. */
  removeEventListener(_type: 'abort', listener: () => void): void {
    const ls = this.listeners;
    const i = ls ? ls.indexOf(listener) : -1;
    if (i < 0) return;
    if (this.aborted) ls![i] = null;
    else ls!.splice(i, 1);
  }
}

/**
 * A real AbortSignal that follows `signal`, for an API that takes only that (undici, fetch): a
 * transport is handed the attempt's `Cancel`, not an AbortSignal.
 */
export function toAbortSignal(signal: AbortLike): AbortSignal {
  if (signal instanceof AbortSignal) return signal;
  const ac = new AbortController();
  if (signal.aborted) ac.abort(signal.reason);
  // A signal handed to a transport lives no longer than its call: the listener goes with it.
  else signal.addEventListener('abort', () => ac.abort(signal.reason), { once: true });
  return ac.signal;
}
