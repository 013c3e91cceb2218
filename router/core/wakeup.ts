import { setMaxListeners } from 'node:events';

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

  notify(): void {
    const c = this.controller;
    this.controller = Wakeup.fresh();
    c.abort();
  }
}
