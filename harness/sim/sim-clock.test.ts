import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../errors.js';
import { drive } from './drive.js';
import { createSimClock } from './sim-clock.js';

describe('the simulated clock', () => {
  it('fires events in time order, ties in the order they were set, jumping straight to each', async () => {
    const clock = createSimClock(1000);
    const fired: string[] = [];
    clock.setTimer(50, () => fired.push(`b@${clock.now()}`));
    clock.setTimer(10, () => fired.push(`a@${clock.now()}`));
    clock.setTimer(50, () => fired.push(`c@${clock.now()}`));
    const cancel = clock.setTimer(30, () => fired.push('cancelled'));
    cancel();
    expect(clock.pending()).toBe(3);
    while (clock.step());
    expect(fired).toEqual(['a@1010', 'b@1050', 'c@1050']);
    expect(clock.fired()).toBe(3);
    expect(clock.now()).toBe(1050);
  });

  it('sleeps a day in no time, rejects an aborted sleep with its reason, and drives async work to its end', async () => {
    const clock = createSimClock(0);
    const ac = new AbortController();
    const aborted = clock.sleep(5000, ac.signal).catch((e: unknown) => e);
    const work = (async () => {
      await clock.sleep(1000);
      ac.abort('stop');
      await clock.sleep(86_400_000);
      return clock.now();
    })();
    expect(await drive(clock, work)).toBe(86_401_000);
    expect(await aborted).toBe('stop');
    expect(clock.pending()).toBe(0);
  });

  it('fails a run that waits on something simulated time does not drive, instead of hanging', async () => {
    const clock = createSimClock(0);
    const never = new Promise<void>(() => {});
    const error = await drive(clock, never, 3).catch((e: unknown) => e);
    expect(isHarnessError(error, 'HARNESS_SIMULATION_STUCK')).toBe(true);
  });
});
