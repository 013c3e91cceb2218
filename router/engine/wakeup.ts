import type { AbortLike } from '../core/cancel.js';
import { startTimer, type Clock } from '../core/clock.js';

interface Sleeper {
  /** When the request must be answered by: the earliest is woken first. */
  due: number;
  /** Ends the sleep once; `elapsed`: the full wait passed. */
  finish(elapsed: boolean): void;
}

/**
 * The requests waiting for capacity. Something that frees one slot (an attempt ending) wakes the
 * one whose deadline comes first; something that changes what every waiter decides (a circuit
 * closing or re-opening) wakes them all, earliest deadline first, so that they decide, and take
 * what reopened, in that order. Waking one per freed slot keeps a thousand waiters from
 * stampeding for the one slot an answer frees. Earliest deadline first, not the order they began
 * to wait: a request woken early goes back to waiting behind every newer one, and at seeds 22, 24,
 * 35, 94 and 99 of 08-window-end-probing one such request lost each window's opening to newer
 * ones until its deadline passed. Ties keep the order they began to wait.
 */
export class Wakeup {
  private readonly sleepers = new Set<Sleeper>();

  /** Requests waiting now. */
  get waiting(): number {
    return this.sleepers.size;
  }

  /**
   * Waits `ms` on `clock`, ending early when woken or when `signal` aborts; resolves true only if
   * the full wait elapsed. Its timer and listener are removed however it ends.
   */
  sleep(clock: Clock, ms: number, signal: AbortLike, due = Infinity): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const sleeper: Sleeper = {
        due,
        finish: (elapsed) => {
          if (!this.sleepers.delete(sleeper)) return;
          cancel();
          signal.removeEventListener('abort', early);
          resolve(elapsed);
        },
      };
      const early = () => sleeper.finish(false);
      this.sleepers.add(sleeper);
      const cancel = startTimer(clock, ms, () => sleeper.finish(true));
      signal.addEventListener('abort', early);
    });
  }

  /** Wakes the `count` waiters whose deadlines come first (all of them by default), in that order. */
  notify(count = Infinity): void {
    if (this.sleepers.size === 0) return;
    if (count === 1) {
      let first: Sleeper | undefined;
      for (const s of this.sleepers) if (!first || s.due < first.due) first = s;
      first!.finish(false);
      return;
    }
    // A stable sort: equal deadlines keep the order they began to wait.
    const order = [...this.sleepers].sort((a, b) => a.due - b.due);
    for (const s of order.slice(0, count)) s.finish(false);
  }
}
