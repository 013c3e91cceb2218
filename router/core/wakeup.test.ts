import { describe, expect, it } from 'vitest';
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
});
