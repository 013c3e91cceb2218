import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from './system-clock.js';

// Node's setTimeout fires after 1 ms when asked for more than 2^31−1 ms: a 30-day wait must not.
describe('the simulator system clock', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sleeps the full 30 days given a wait longer than a timer can hold', async () => {
    let woke = false;
    void systemClock.sleep(30 * 86_400_000).then(() => (woke = true));
    await vi.advanceTimersByTimeAsync(1000);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(30 * 86_400_000 - 2000);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    expect(woke).toBe(true);
  });

  it('stops a long sleep when aborted, in any of its chained timers', async () => {
    const ac = new AbortController();
    const slept = systemClock.sleep(30 * 86_400_000, ac.signal);
    await vi.advanceTimersByTimeAsync(25 * 86_400_000);
    ac.abort(new Error('stop'));
    await expect(slept).rejects.toThrow('stop');
    expect(vi.getTimerCount()).toBe(0);
  });
});
