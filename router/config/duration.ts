const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Reads `250ms`, `30s`, `1m30s`, `2h` or a number of milliseconds; undefined otherwise. */
export function readDuration(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  const t = value.trim();
  // Enough digits overflow to Infinity, which is no duration.
  if (/^\d+(\.\d+)?$/.test(t)) return finite(Number(t));
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(t)) return undefined;
  let ms = 0;
  for (const m of t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) ms += Number(m[1]) * UNIT_MS[m[2]!]!;
  return finite(ms);
}

const finite = (ms: number) => (Number.isFinite(ms) ? ms : undefined);

/** The longest duration the router accepts: 24 days, under the 2^31−1 ms past which Node timers misfire. */
export const MAX_DURATION_MS = 24 * 86_400_000;
