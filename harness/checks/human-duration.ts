const UNITS: ReadonlyArray<readonly [string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['min', 60_000],
  ['s', 1000],
];

/**
 * A duration for people: milliseconds under a minute (`850 ms`, `12500 ms`),
 * above it the two largest units (`3 d 0 h`, `2 h 5 min`, `1 min 30 s`), so a multi-day wait
 * does not read as `259199883 ms`. Negative durations keep their sign.
 */
export function humanDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  const sign = ms < 0 ? '-' : '';
  const rest = Math.abs(ms);
  if (rest < 60_000) return `${sign}${Math.round(rest)} ms`;
  const i = UNITS.findIndex(([, size]) => rest >= size);
  const [bigName, big] = UNITS[i]!;
  const [smallName, small] = UNITS[i + 1]!;
  const n = Math.floor(rest / big);
  const m = Math.floor((rest - n * big) / small);
  return `${sign}${n} ${bigName} ${m} ${smallName}`;
}
