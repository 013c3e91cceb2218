import { setMaxListeners } from 'node:events';
import { startTimer, type Clock } from '../core/clock.js';

/**
 * Wakes every request waiting for capacity when something it waits on changes (a circuit closes
 * after its probe, or re-opens), so that waiters re-decide at once instead of polling.
 */
export class Wakeup {
  private controller = Wakeup.fresh();

  private static fresh(): AbortController {
    const c = new AbortController();
    // Every waiting request listens; there may be thousands.
    setMaxListeners(0, c.signal);
    return c;
  }

  /** Aborts on the next `notify()`. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * Waits `ms` on `clock`, ending early on the next `notify()` or when `signal` aborts; resolves
   * true only if the full wait elapsed. Listeners are removed however it ends.
   */
  sleep(clock: Clock, ms: number, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    const wake = this.signal;
    return new Promise((resolve) => {
      const finish = (elapsed: boolean) => {
        cancel();
        signal.removeEventListener('abort', early);
        wake.removeEventListener('abort', early);
        resolve(elapsed);
      };
      const early = () => finish(false);
      const cancel = startTimer(clock, ms, () => finish(true));
      signal.addEventListener('abort', early);
      wake.addEventListener('abort', early);
    });
  }

  notify(): void {
    const c = this.controller;
    this.controller = Wakeup.fresh();
    c.abort();
  }
}
