import { describe, expect, it } from 'vitest';
import { wilsonInterval } from './wilson-interval.js';

describe('wilsonInterval', () => {
  // Reference values: Wilson (1927), as computed by R's prop.test(correct = FALSE) and statsmodels.
  it.each([
    [100, 100, 0.963, 1],
    [0, 100, 0, 0.037],
    [50, 100, 0.4038, 0.5962],
    [1, 1, 0.2065, 1],
    [9, 10, 0.5958, 0.9821],
  ])('bounds %i of %i passes within [%f, %f]', (passes, n, low, high) => {
    const i = wilsonInterval(passes, n)!;
    expect(i.low).toBeCloseTo(low, 3);
    expect(i.high).toBeCloseTo(high, 3);
  });

  it('gives no interval given no trials', () => {
    expect(wilsonInterval(0, 0)).toBeUndefined();
  });
});
