import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../core/fake-clock.js';
import { Wakeup } from './wakeup.js';

describe('Wakeup', () => {
  it('sleeps the full wait, or ends early on a notify or an abort, leaving no waiter behind', async () => {
    const clock = createFakeClock(0);
    const w = new Wakeup();
    const client = new AbortController();
    const full = w.sleep(clock, 100, client.signal);
    expect(w.waiting).toBe(1);
    await clock.advance(100);
    expect(await full).toBe(true);
    const woken = w.sleep(clock, 100, client.signal);
    w.notify();
    expect(await woken).toBe(false);
    const aborted = w.sleep(clock, 100, client.signal);
    client.abort();
    expect(await aborted).toBe(false);
    expect(clock.now()).toBe(100);
    expect(w.waiting).toBe(0);
  });

  it('wakes only the longest waiting given one freed slot and equal deadlines, not the whole herd', async () => {
    const clock = createFakeClock(0);
    const w = new Wakeup();
    const never = new AbortController().signal;
    const woke: number[] = [];
    const sleeps = [0, 1, 2, 3].map((i) => w.sleep(clock, 1000, never).then((full) => !full && woke.push(i)));
    w.notify(1);
    await Promise.resolve();
    expect(woke).toEqual([0]);
    expect(w.waiting).toBe(3);
    w.notify(2);
    await Promise.resolve();
    expect(woke).toEqual([0, 1, 2]);
    w.notify();
    await Promise.all(sleeps);
    expect(woke).toEqual([0, 1, 2, 3]);
    expect(w.waiting).toBe(0);
  });

  it('wakes the earliest deadline first, one at a time and all together, whenever each began to wait', async () => {
    const clock = createFakeClock(0);
    const w = new Wakeup();
    const never = new AbortController().signal;
    const woke: string[] = [];
    const sleep = (name: string, due: number) =>
      w.sleep(clock, 1000, never, due).then((full) => !full && woke.push(name));
    const sleeps = [sleep('late', 900), sleep('soon', 300), sleep('middle', 600)];
    w.notify(1);
    await Promise.resolve();
    expect(woke).toEqual(['soon']);
    sleeps.push(sleep('sooner', 100));
    w.notify();
    await Promise.all(sleeps);
    expect(woke).toEqual(['soon', 'sooner', 'middle', 'late']);
  });
});
