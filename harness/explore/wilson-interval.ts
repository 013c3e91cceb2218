/** z for a two-sided 95 % interval. */
const Z95 = 1.959963984540054;

/**
 * The Wilson score interval on a share of `passes` out of `n` (95 % by default): unlike the normal
 * approximation it stays inside [0, 1] and says something useful at 100 of 100 (about 0.963 to 1).
 * Undefined with no trials: nothing was judged, so there is no share to bound.
 */
export function wilsonInterval(passes: number, n: number, z = Z95): { low: number; high: number } | undefined {
  if (n <= 0) return undefined;
  const p = passes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
