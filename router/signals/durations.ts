/**
 * Reads a Go `time.Duration` string (`6m0s`, `12ms`, `2m59.56s`, `49m14.015999999s`) as ms.
 * Returns undefined for anything else, negative values included. A hand-rolled scanner: this
 * runs on every response.
 * @see https://pkg.go.dev/time#ParseDuration
 */
export function parseGoDuration(text: string): number | undefined {
  const t = text.trim();
  let i = 0;
  let ms = 0;
  if (t.length === 0) return undefined;
  while (i < t.length) {
    const start = i;
    while (i < t.length && ((t.charCodeAt(i) >= 48 && t.charCodeAt(i) <= 57) || t.charCodeAt(i) === 46)) i++;
    if (i === start) return undefined;
    const n = Number(t.slice(start, i));
    if (!Number.isFinite(n)) return undefined;
    let unit: number;
    const c = t[i];
    if (c === 'h') [unit, i] = [3_600_000, i + 1];
    else if (c === 'm') [unit, i] = t[i + 1] === 's' ? [1, i + 2] : [60_000, i + 1];
    else if (c === 's') [unit, i] = [1000, i + 1];
    else if (c === 'u' || c === 'µ') [unit, i] = t[i + 1] === 's' ? [0.001, i + 2] : [Number.NaN, i];
    else if (c === 'n' && t[i + 1] === 's') [unit, i] = [0.000001, i + 2];
    else return undefined;
    if (Number.isNaN(unit)) return undefined;
    ms += n * unit;
  }
  return ms;
}

/** Reads non-negative decimal seconds (`5`, `1.5`) as ms; undefined for anything else. */
export function parseSeconds(text: string): number | undefined {
  const t = text.trim();
  if (!/^\d+(\.\d+)?$/.test(t)) return undefined;
  // Rounded to the microsecond: `12.346` is 12346 ms, not 12345.999999999998.
  return Math.round(Number(t) * 1e6) / 1000;
}

/** Reads non-negative decimal milliseconds; undefined for anything else. */
export function parseMillis(text: string): number | undefined {
  const t = text.trim();
  if (!/^\d+(\.\d+)?$/.test(t)) return undefined;
  return Number(t);
}

/**
 * Reads an HTTP-date (IMF-fixdate, and the obsolete forms `Date.parse` accepts) as epoch ms.
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-5.6.7
 */
export function parseHttpDate(text: string): number | undefined {
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : at;
}

// Timestamps read lately and their values (a pure function of the text): a response names a reset
// per limit family, and the responses of the same second name the same ones. Bounded: emptied
// when full.
const rfc3339Seen = new Map<string, number | undefined>();
const RFC3339_SEEN_MAX = 16;

/** Reads an RFC 3339 timestamp (Anthropic's resets) as epoch ms. */
export function parseRfc3339(text: string): number | undefined {
  if (rfc3339Seen.has(text)) return rfc3339Seen.get(text);
  let at: number | undefined;
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/i.test(text.trim())) {
    at = Date.parse(text);
    if (Number.isNaN(at)) at = undefined;
  }
  if (rfc3339Seen.size >= RFC3339_SEEN_MAX) rfc3339Seen.clear();
  rfc3339Seen.set(text, at);
  return at;
}

/** Reads a protobuf JSON Duration (`"47s"`, `"1.5s"`) as ms. */
export function parseProtoDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)s$/.exec(text.trim());
  return m ? Number(m[1]) * 1000 : undefined;
}
