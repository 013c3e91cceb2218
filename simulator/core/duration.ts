const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION_RE = /^(-?)((?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+)$/;
const PART_RE = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

/**
 * Parses a human duration such as `250ms`, `5s`, `1m30s`, `3d` or `-5s` into milliseconds;
 * a bare number is taken as milliseconds. Returns undefined when the text is not a duration.
 */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) ? text : undefined;
  const trimmed = text.trim();
  // A run of digits long enough to overflow reads as Infinity: that is no duration either.
  if (/^-?\d+(\.\d+)?$/.test(trimmed)) return finite(Number(trimmed));
  const match = DURATION_RE.exec(trimmed);
  if (!match) return undefined;
  let total = 0;
  for (const part of match[2]!.matchAll(PART_RE)) total += Number(part[1]) * UNIT_MS[part[2]!]!;
  return finite(match[1] === '-' ? -total : total);
}

const finite = (ms: number) => (Number.isFinite(ms) ? ms : undefined);

/**
 * The longest wait anything in throttlelab schedules: 24 days. Node's timers overflow past
 * 2^31−1 ms (about 24.8 days) and then fire after 1 ms, so longer values are refused up front.
 */
export const MAX_WAIT_MS = 24 * 86_400_000;

/** Formats milliseconds compactly for people: `850ms`, `12.5s`, `6m`, `2h30m`. */
export function formatDurationShort(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 1000) return `${sign}${Math.round(rest)}ms`;
  if (rest < 60_000) return `${sign}${+(rest / 1000).toFixed(2)}s`;
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  return sign + parts.join('');
}
