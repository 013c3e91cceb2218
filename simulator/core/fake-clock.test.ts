import { describe, expect, it } from 'vitest';
import { createFakeClock } from './fake-clock.js';

describe('createFakeClock', () => {
  it('fires sleeps in time order as time advances', async () => {
    const clock = createFakeClock(1000);
    const fired: string[] = [];
    void clock.sleep(300).then(() => fired.push(`b@${clock.now()}`));
    void clock.sleep(100).then(() => fired.push(`a@${clock.now()}`));
    await clock.advance(200);
    expect(fired).toEqual(['a@1100']);
    await clock.advance(200);
    expect(fired).toEqual(['a@1100', 'b@1300']);
    expect(clock.now()).toBe(1400);
  });

  it('rejects a sleep when its signal aborts', async () => {
    const clock = createFakeClock();
    const ac = new AbortController();
    const sleeping = clock.sleep(1000, ac.signal);
    ac.abort(new Error('gone'));
    await expect(sleeping).rejects.toThrow('gone');
    expect(clock.pending()).toBe(0);
  });

  it('refuses to move backwards', async () => {
    const clock = createFakeClock(5000);
    await expect(clock.set(4000)).rejects.toThrow(/Time only moves forward/);
  });
});
