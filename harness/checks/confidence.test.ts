import { describe, expect, it } from 'vitest';
import { atLeast, atMost, meanInterval, wilson } from './confidence.js';

describe('confidence bounds', () => {
  it('computes the Wilson score interval (checked against published values)', () => {
    // 81 of 263 at z = 1.96: 0.2553 to 0.3662 (Wilson 1927 as tabulated by Newcombe 1998).
    const [lo, hi] = wilson(81, 263, 1.96);
    expect(lo).toBeCloseTo(0.2553, 3);
    expect(hi).toBeCloseTo(0.3662, 3);
    const [a, b] = wilson(0, 10, 1.96);
    expect(a).toBe(0);
    expect(b).toBeCloseTo(0.2775, 3);
  });

  it('does not flip between pass and fail for 95.1 % and 94.9 % of a thousand', () => {
    expect(atLeast(wilson(951, 1000), 0.95, false)).toBe('marginal');
    expect(atLeast(wilson(949, 1000), 0.95, false)).toBe('marginal');
    expect(atLeast(wilson(990, 1000), 0.95, false)).toBe('pass');
    expect(atLeast(wilson(900, 1000), 0.95, false)).toBe('fail');
    // Everything served passes whatever the sample's size.
    expect(atLeast(wilson(20, 20), 0.95, true)).toBe('pass');
  });

  it('bounds a mean with the sample deviation', () => {
    const [lo, hi] = meanInterval([1, 1, 1, 3, 1, 1, 1, 1, 1, 1]);
    expect(lo).toBeLessThan(1.2);
    expect(hi).toBeGreaterThan(1.2);
    expect(atMost([lo, hi], 1.2, false)).toBe('marginal');
    expect(atMost(meanInterval(Array.from({ length: 200 }, (_, i) => (i % 10 === 0 ? 2 : 1))), 1.5, false)).toBe(
      'pass',
    );
    expect(atMost(meanInterval(Array.from({ length: 200 }, () => 3)), 2, false)).toBe('fail');
  });
});
