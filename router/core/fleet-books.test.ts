import { describe, expect, it } from 'vitest';
import { CapacityBook } from './capacity.js';
import { RetryBudget } from './retry-budget.js';

// What the books hand a fleet and take from it: the pure half of sharing state between replicas.

describe('CapacityBook in a fleet', () => {
  const window = (remaining: number, resetAt: number) => ({
    refill: 'window' as const,
    requests: { limit: 60, remaining, resetAt },
  });

  it('hands over each observed limit once, the latest per target', () => {
    const c = new CapacityBook();
    c.observe('t', window(5, 30_000), 0);
    c.observe('t', window(4, 30_000), 10);
    expect(c.takeObserved()).toEqual([
      ['t', { refill: 'window', requests: { limit: 60, remaining: 4, resetAt: 30_000, observedAt: 10 } }],
    ]);
    expect(c.takeObserved()).toEqual([]);
  });

  it('adopts another replica’s newer observation and ignores an older one', () => {
    const c = new CapacityBook();
    c.observe('t', window(5, 30_000), 100);
    c.adopt('t', { refill: 'window', requests: { limit: 60, remaining: 50, resetAt: 30_000, observedAt: 50 } });
    expect(c.view('t', 200).requestsRemaining).toBe(5);
    c.adopt('t', { refill: 'window', requests: { limit: 60, remaining: 0, resetAt: 30_000, observedAt: 150 } });
    expect(c.availableAt('t', 0, 200)).toBe(30_000);
    expect(c.takeObserved()).toEqual([['t', expect.anything()]]);
    expect(c.takeObserved()).toEqual([]);
  });

  it('counts what other replicas hold in flight against what is left', () => {
    const c = new CapacityBook();
    c.observe('t', window(3, 60_000), 0);
    c.reserve('t', 100);
    c.setRemoteHeld('t', 1, 50);
    expect(c.availableAt('t', 0, 0)).toBe(0);
    c.setRemoteHeld('t', 2, 50);
    expect(c.availableAt('t', 0, 0)).toBe(60_000);
    expect(c.view('t', 0)).toMatchObject({ inFlight: 1, fleetInFlight: 3 });
  });

  it('reports its own in-flight counts whole, only when they changed unless asked', () => {
    const c = new CapacityBook();
    expect(c.takeHeld(false)).toBeUndefined();
    c.reserve('a', 10);
    c.reserve('b', 20);
    c.release('b', 20);
    expect(c.takeHeld(false)).toEqual([['a', 1, 10]]);
    expect(c.takeHeld(false)).toBeUndefined();
    expect(c.takeHeld(true)).toEqual([['a', 1, 10]]);
  });
});

describe('RetryBudget in a fleet', () => {
  it('reports its own counts once, by bucket', () => {
    const b = new RetryBudget({ ratio: 0.5, minPerWindow: 0, windowMs: 1000 });
    b.onRequest(0);
    b.onRequest(150);
    expect(b.tryTake(150)).toBe(true);
    expect(b.takeCounts()).toEqual([
      [0, 1, 0],
      [100, 1, 1],
    ]);
    expect(b.takeCounts()).toEqual([]);
  });

  it('bounds the fleet as a whole: other replicas’ requests and extras count', () => {
    const b = new RetryBudget({ ratio: 0.5, minPerWindow: 0, windowMs: 1000 });
    b.addRemote(0, 4, 0);
    expect(b.remaining(50)).toBe(2);
    b.addRemote(0, 0, 2);
    expect(b.tryTake(50)).toBe(false);
    expect(b.takeCounts()).toEqual([]);
  });

  it('ignores counts for a bucket that has left the window', () => {
    const b = new RetryBudget({ ratio: 1, minPerWindow: 0, windowMs: 1000 });
    b.onRequest(2000);
    b.addRemote(1000, 10, 0);
    expect(b.remaining(2000)).toBe(1);
  });
});
