import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../core/fake-clock.js';
import { Wakeup } from './wakeup.js';

describe('Wakeup', () => {
  it('aborts the signal handed out before a notify, and hands out a fresh one after', () => {
    const w = new Wakeup();
    const before = w.signal;
    expect(before.aborted).toBe(false);
    w.notify();
    expect(before.aborted).toBe(true);
    expect(w.signal.aborted).toBe(false);
    expect(w.signal).not.toBe(before);
  });

  it('sleeps the full wait, or ends early on a notify or an abort, leaving no listeners behind', async () => {
    const clock = createFakeClock(0);
    const w = new Wakeup();
    const client = new AbortController();
    const full = w.sleep(clock, 100, client.signal);
    await clock.advance(100);
    expect(await full).toBe(true);
    const woken = w.sleep(clock, 100, client.signal);
    w.notify();
    expect(await woken).toBe(false);
    const aborted = w.sleep(clock, 100, client.signal);
    client.abort();
    expect(await aborted).toBe(false);
    expect(clock.now()).toBe(100);
  });
});
