import type { Clock } from './clock.js';

interface Timer {
  at: number;
  order: number;
  resolve: () => void;
}

/** A clock that only moves when told to; for tests and for in-process use in simulated time. */
export interface FakeClock extends Clock {
  /** Moves time forward by `ms`, firing due sleeps in time order and letting their continuations run. */
  advance(ms: number): Promise<void>;
  /** Sets the time; refuses to go backwards. */
  set(at: number): Promise<void>;
  /** Number of sleeps not yet fired. */
  pending(): number;
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Creates a fake clock starting at `startAt` epoch ms (default 2026-01-01T00:00:00Z). */
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
      await clock.set(now + ms);
    },
    async set(target) {
      if (target < now)
        throw new RangeError(`Failed to set the fake clock: ${target} is before ${now}. Time only moves forward.`);
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
