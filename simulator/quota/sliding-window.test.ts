import { describe, expect, it } from 'vitest';
import type { LimitSpec } from './meter.js';
import { slidingWindow } from './sliding-window.js';

const spec: LimitSpec = { metric: 'requests', limit: 3, windowMs: 10_000, algorithm: 'sliding-window' };

describe('slidingWindow', () => {
  it('frees each unit one window after it was taken', () => {
    const s = slidingWindow.create(spec, 0);
    slidingWindow.consume(s, spec, 1, 0);
    slidingWindow.consume(s, spec, 1, 4000);
    slidingWindow.consume(s, spec, 1, 8000);
    expect(slidingWindow.available(s, spec, 9000)).toBe(0);
    expect(slidingWindow.waitMs(s, spec, 1, 9000)).toBe(1000);
    expect(slidingWindow.waitMs(s, spec, 2, 9000)).toBe(5000);
    expect(slidingWindow.available(s, spec, 10_000)).toBe(1);
    expect(slidingWindow.resetInMs(s, spec, 10_000)).toBe(8000);
  });

  it('keeps its log proportional to the traffic in the window', () => {
    const big: LimitSpec = { ...spec, limit: 1_000_000, windowMs: 1000 };
    const s = slidingWindow.create(big, 0);
    for (let t = 0; t < 100_000; t++) slidingWindow.consume(s, big, 1, t);
    expect(s.times.length - s.head).toBeLessThanOrEqual(1001);
    expect(s.times.length).toBeLessThan(5000);
  });
});
