import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from './system-clock.js';

// Node's setTimeout fires after 1 ms when asked for more than 2^31−1 ms: a 30-day timer must not.
describe('the router system clock', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('fires a 30-day timer after 30 days, not after 1 ms', async () => {
    const fire = vi.fn();
    systemClock.setTimer!(30 * 86_400_000, fire);
    await vi.advanceTimersByTimeAsync(30 * 86_400_000 - 1);
    expect(fire).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(fire).toHaveBeenCalledOnce();
  });

  it('cancels a long timer in whichever chained timer it is', async () => {
    const fire = vi.fn();
    const cancel = systemClock.setTimer!(30 * 86_400_000, fire);
    await vi.advanceTimersByTimeAsync(26 * 86_400_000);
    cancel();
    await vi.advanceTimersByTimeAsync(5 * 86_400_000);
    expect(fire).not.toHaveBeenCalled();
  });

  it('sleeps a long wait in full and can still be aborted', async () => {
    let woke = false;
    void systemClock.sleep(25 * 86_400_000).then(() => (woke = true));
    await vi.advanceTimersByTimeAsync(86_400_000);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(24 * 86_400_000);
    expect(woke).toBe(true);
    const ac = new AbortController();
    const slept = systemClock.sleep(25 * 86_400_000, ac.signal);
    ac.abort(new Error('gone'));
    await expect(slept).rejects.toThrow('gone');
  });
});
