import { describe, expect, it } from 'vitest';
import { judgeDeadline } from './judge-deadline.js';

describe('judgeDeadline', () => {
  it('gives up a grace period after the run was stopped, never before it is', () => {
    let now = 0;
    const stop = new AbortController();
    const giveUp = judgeDeadline(stop.signal, () => now, 1000)!;
    now = 5000;
    expect(giveUp()).toBe(false);
    stop.abort();
    now = 5999;
    expect(giveUp()).toBe(false);
    now = 6000;
    expect(giveUp()).toBe(true);
  });

  it('counts from the start when the run was stopped before judging began', () => {
    const stop = new AbortController();
    stop.abort();
    let now = 100;
    const giveUp = judgeDeadline(stop.signal, () => now, 0)!;
    expect(giveUp()).toBe(true);
    now = 0;
    expect(judgeDeadline(undefined, () => now)).toBeUndefined();
  });
});
