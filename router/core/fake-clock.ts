import type { Clock } from './clock.js';

interface Timer {
  at: number;
  order: number;
  resolve: () => void;
}

/** A clock that only moves when told to: for tests, and for running the router in simulated time. */
export interface FakeClock extends Clock {
  /** Moves time forward by `ms`, firing due sleeps in order and letting their continuations run. */
  advance(ms: number): Promise<void>;
  pending(): number;
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Creates a fake clock at `startAt` epoch ms. */
export function createFakeClock(startAt = Date.UTC(2026, 0, 1)): FakeClock {
  let now = startAt;
  let order = 0;
  let timers: Timer[] = [];
  const clock: FakeClock = {
    now: () => now,
    sleep(ms, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (!(ms > 0)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer: Timer = { at: now + ms, order: order++, resolve };
        timers.push(timer);
        signal?.addEventListener(
          'abort',
          () => {
            timers = timers.filter((t) => t !== timer);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    },
    async advance(ms) {
      const target = now + ms;
      await flush();
      for (;;) {
        const due = timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.order - b.order)[0];
        if (!due) break;
        timers = timers.filter((t) => t !== due);
        now = Math.max(now, due.at);
        due.resolve();
        await flush();
      }
      now = target;
      await flush();
    },
    pending: () => timers.length,
  };
  return clock;
}
