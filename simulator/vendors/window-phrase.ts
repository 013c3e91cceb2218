const UNITS: ReadonlyArray<[number, string]> = [
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1_000, 'second'],
];

/**
 * A quota window as a limit message names it: `per minute`, `per hour`, `per day`, or
 * `per 10 seconds` for multiples; a zero window (concurrency) reads as `at once`.
 */
export function perWindow(windowMs: number): string {
  if (windowMs <= 0) return 'at once';
  for (const [size, unit] of UNITS)
    if (windowMs % size === 0) return windowMs === size ? `per ${unit}` : `per ${windowMs / size} ${unit}s`;
  return `per ${windowMs} milliseconds`;
}
