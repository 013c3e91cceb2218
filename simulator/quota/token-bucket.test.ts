import { describe, expect, it } from 'vitest';
import type { LimitSpec } from './meter.js';
import { tokenBucket } from './token-bucket.js';

const spec: LimitSpec = { metric: 'requests', limit: 60, windowMs: 60_000, algorithm: 'token-bucket' };

describe('tokenBucket', () => {
  it('starts full and refills continuously at limit per window', () => {
    const s = tokenBucket.create(spec, 0);
    tokenBucket.consume(s, spec, 60, 0);
    expect(tokenBucket.available(s, spec, 0)).toBe(0);
    expect(tokenBucket.available(s, spec, 1000)).toBeCloseTo(1);
    expect(tokenBucket.available(s, spec, 30_000)).toBeCloseTo(30);
    expect(tokenBucket.available(s, spec, 600_000)).toBe(60);
  });

  it('waits exactly until the cost has refilled', () => {
    const s = tokenBucket.create(spec, 0);
    tokenBucket.consume(s, spec, 60, 0);
    expect(tokenBucket.waitMs(s, spec, 1, 0)).toBeCloseTo(1000);
    expect(tokenBucket.waitMs(s, spec, 5, 2000)).toBeCloseTo(3000);
    expect(tokenBucket.waitMs(s, spec, 1, 1000)).toBe(0);
  });

  it('reports the time back to full as its reset', () => {
    const s = tokenBucket.create(spec, 0);
    tokenBucket.consume(s, spec, 6, 0);
    expect(tokenBucket.resetInMs(s, spec, 0)).toBeCloseTo(6000);
  });

  it('never admits a cost above the limit', () => {
    expect(tokenBucket.waitMs(tokenBucket.create(spec, 0), spec, 61, 0)).toBe(Infinity);
  });

  it('carries debt charged after the fact', () => {
    const s = tokenBucket.create(spec, 0);
    tokenBucket.consume(s, spec, 70, 0);
    expect(tokenBucket.available(s, spec, 0)).toBe(-10);
    expect(tokenBucket.waitMs(s, spec, 1, 0)).toBeCloseTo(11_000);
  });
});
