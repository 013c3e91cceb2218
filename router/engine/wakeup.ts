import type { AbortLike } from '../core/cancel.js';
import { startTimer, type Clock } from '../core/clock.js';

interface Sleeper {
  /** Ends the sleep once; `elapsed`: the full wait passed. */
  finish(elapsed: boolean): void;
}

/**
 * The requests waiting for capacity, in the order they began to wait. Something that frees one
 * slot (an attempt ending) wakes the one that waited longest; something that changes what every
 * waiter decides (a circuit closing or re-opening) wakes them all. Waking one per freed slot
 * keeps a thousand waiters from stampeding for the one slot an answer frees.
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
  sleep(clock: Clock, ms: number, signal: AbortLike): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const sleeper: Sleeper = {
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

  /** Wakes the `count` longest waiting (all of them by default). */
  notify(count = Infinity): void {
    if (this.sleepers.size === 0) return;
    let left = count;
    for (const s of this.sleepers) {
      if (left-- <= 0) break;
      s.finish(false);
    }
  }
}
