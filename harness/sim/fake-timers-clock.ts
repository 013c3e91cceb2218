import type { SimClock } from './sim-clock.js';
import { timerSleep } from './timer-sleep.js';

/** What `@sinonjs/fake-timers` replaces: timers, `Date` and `performance.now` (never setImmediate or nextTick). */
const FAKED = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] as const;

/** A simulated clock over installed fake timers: the code under test's own sleeps are its events. */
export interface FakeTimersClock extends SimClock {
  /** Puts the real timers back. */
  uninstall(): void;
}

/**
 * Installs `@sinonjs/fake-timers` globally at `startAt` and wraps it as the run's clock: the
 * simulator, the load and the code under test (an SDK's retry sleep, a router's backoff) all
 * schedule on it, and `step` fires the earliest timer. setImmediate, nextTick and microtasks stay
 * real: they are how continuations run between events.
 */
export async function installFakeTimersClock(startAt: number): Promise<FakeTimersClock> {
  // Loaded on first use: a CLI run never pays for it.
  const { install } = await import('@sinonjs/fake-timers');
  const fake = install({
    now: startAt,
    toFake: [...FAKED],
    loopLimit: 100_000_000,
  });
  let fired = 0;
  const setTimer = (ms: number, fire: () => void) => {
    const id = fake.setTimeout(fire, Math.max(0, ms));
    return () => fake.clearTimeout(id);
  };
  return {
    now: () => fake.now,
    setTimer,
    sleep: timerSleep(setTimer),
    step() {
      if (fake.countTimers() === 0) return false;
      fake.next();
      fired++;
      return true;
    },
    pending: () => fake.countTimers(),
    fired: () => fired,
    uninstall: () => fake.uninstall(),
  };
}
