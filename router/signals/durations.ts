const GO_UNITS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, 'µs': 0.001, ns: 0.000001 };
const GO_RE = /^(\d+(?:\.\d+)?(?:h|ms|m|s|us|µs|ns))+$/;
const GO_PART = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g;

/**
 * Reads a Go `time.Duration` string (`6m0s`, `12ms`, `2m59.56s`, `49m14.015999999s`) as ms.
 * Returns undefined for anything else, negative values included.
 * @see https://pkg.go.dev/time#ParseDuration
 */
export function parseGoDuration(text: string): number | undefined {
  const t = text.trim();
  if (!GO_RE.test(t)) return undefined;
  let ms = 0;
  for (const m of t.matchAll(GO_PART)) ms += Number(m[1]) * GO_UNITS[m[2]!]!;
  return Number.isFinite(ms) ? ms : undefined;
}

/** Reads non-negative decimal seconds (`5`, `1.5`) as ms; undefined for anything else. */
export function parseSeconds(text: string): number | undefined {
  const t = text.trim();
  if (!/^\d+(\.\d+)?$/.test(t)) return undefined;
  return Number(t) * 1000;
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

/** Reads an RFC 3339 timestamp (Anthropic's resets) as epoch ms. */
export function parseRfc3339(text: string): number | undefined {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/i.test(text.trim())) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : at;
}

/** Reads a protobuf JSON Duration (`"47s"`, `"1.5s"`) as ms. */
export function parseProtoDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)s$/.exec(text.trim());
  return m ? Number(m[1]) * 1000 : undefined;
}
