const formatters = new Map<string, Intl.DateTimeFormat>();

function offsetMs(timeZone: string, at: number): number {
  let fmt = formatters.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, fmt);
  }
  const parts: Record<string, number> = {};
  for (const p of fmt.formatToParts(new Date(at))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return wall - (at - (at % 1000));
}

/** Tells whether `timeZone` is an IANA zone this runtime knows. */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Returns a function giving the start of the fixed window containing `now`, with windows laid
 * out from local midnight in `timeZone` (Gemini's daily quota resets at midnight Pacific time).
 * Without a zone, windows are aligned to the Unix epoch (minutes start at second 00).
 */
export function createWindowStart(windowMs: number, timeZone?: string): (now: number) => number {
  if (!timeZone || timeZone === 'UTC') return (now) => Math.floor(now / windowMs) * windowMs;
  return (now) => {
    const offset = offsetMs(timeZone, now);
    const local = now + offset;
    const dayStart = Math.floor(local / 86_400_000) * 86_400_000;
    const start = dayStart + Math.floor((local - dayStart) / windowMs) * windowMs;
    return start - offset;
  };
}
