/**
 * Confidence bounds for the threshold checks, so that a verdict does not flip on noise (95.1 %
 * PASS, 94.9 % FAIL for the same router). Both bounds are one-sided 95 % bounds (z = 1.645; the
 * pair is a 90 % two-sided interval): a check fails only when its figure is worse than the
 * threshold with 95 % confidence, passes only when it is better with 95 % confidence, and is
 * MARGINAL (the run INCONCLUSIVE) when the interval straddles the threshold. A perfect sample
 * (nothing unserved, no extra attempt) passes whatever its size: no evidence points the other way.
 */
export const Z = 1.645;

/** Where an interval lies against a threshold. */
export type Standing = 'pass' | 'fail' | 'marginal';

/** Wilson score interval of a proportion (`successes` of `n`): [low, high], in 0..1. */
export function wilson(successes: number, n: number, z = Z): [number, number] {
  if (n <= 0) return [0, 1];
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** Normal-approximation interval of a mean (sample standard deviation): [low, high]. */
export function meanInterval(values: ArrayLike<number>, z = Z): [number, number] {
  const n = values.length;
  if (n === 0) return [0, 0];
  // Summed in order, as a reduce would: the same figures to the last bit.
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[i]!;
  const mean = sum / n;
  if (n === 1) return [mean, mean];
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (values[i]! - mean) ** 2;
  const variance = squares / (n - 1);
  const half = z * Math.sqrt(variance / n);
  return [mean - half, mean + half];
}

/** A share that must be at least `min`. */
export function atLeast([low, high]: [number, number], min: number, perfect: boolean): Standing {
  if (perfect || low >= min) return 'pass';
  return high < min ? 'fail' : 'marginal';
}

/** A figure that must be at most `max`. */
export function atMost([low, high]: [number, number], max: number, perfect: boolean): Standing {
  if (perfect || high <= max) return 'pass';
  return low > max ? 'fail' : 'marginal';
}

/** `92.1–96.8` (percent, one decimal). */
export const pctRange = ([a, b]: [number, number]) => `${(a * 100).toFixed(1)}–${(b * 100).toFixed(1)}`;
