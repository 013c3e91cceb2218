import { parseGoDuration, parseProtoDuration } from './durations.js';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses a JSON error body, tolerating anything. */
export function parseJsonBody(text: string | undefined): Json | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return isObj(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The `error` object of an OpenAI-, Anthropic- or Google-shaped error body. */
export function errorObject(body: Json | undefined): Json | undefined {
  return body && isObj(body.error) ? body.error : undefined;
}

/**
 * Gemini: `google.rpc.RetryInfo.retryDelay` in the body, and whether a `QuotaFailure` names a
 * per-day quota (the wall that lasts until midnight Pacific).
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting
 */
export function decodeGoogleDetails(body: Json | undefined): { waitMs?: number; daily: boolean } {
  const details = errorObject(body)?.details;
  let waitMs: number | undefined;
  let daily = false;
  if (Array.isArray(details)) {
    for (const d of details) {
      if (!isObj(d)) continue;
      if (
        typeof d['@type'] === 'string' &&
        d['@type'].endsWith('google.rpc.RetryInfo') &&
        typeof d.retryDelay === 'string'
      ) {
        waitMs = parseProtoDuration(d.retryDelay);
      }
      if (Array.isArray(d.violations)) {
        for (const v of d.violations)
          if (isObj(v) && typeof v.quotaId === 'string' && /PerDay/i.test(v.quotaId)) daily = true;
      }
    }
  }
  return { waitMs, daily };
}

const MESSAGE_WAITS: Array<[RegExp, (m: RegExpExecArray) => number | undefined]> = [
  // Azure: "Please retry after 86400 seconds." / "Try again in 2 seconds."
  [/retry after (\d+(?:\.\d+)?) seconds?/i, (m) => Number(m[1]) * 1000],
  [/try again in (\d+(?:\.\d+)?) seconds?/i, (m) => Number(m[1]) * 1000],
  // OpenAI, Groq, Gemini: "Please try again in 5.289s" / "Please retry in 10h17m5.72s."
  [/(?:try again|retry) in ((?:\d+(?:\.\d+)?(?:h|ms|m|s|µs|us))+)/i, (m) => parseGoDuration(m[1]!)],
];

/** A wait stated in an error message's text. */
export function decodeMessageWait(body: Json | undefined): number | undefined {
  // xAI's flat body puts the message in a string `error`.
  const message = errorObject(body)?.message ?? body?.message ?? body?.error;
  if (typeof message !== 'string') return undefined;
  for (const [re, read] of MESSAGE_WAITS) {
    const m = re.exec(message);
    if (m) {
      const ms = read(m);
      if (ms !== undefined && Number.isFinite(ms)) return ms;
    }
  }
  return undefined;
}

const QUOTA_CODES = new Set([
  'insufficient_quota',
  'credit_balance_exhausted',
  'organization_spend_limit_exceeded',
  'project_spend_limit_exceeded',
  'organization_usage_limit_exceeded',
  'billing_not_active',
  'enforced_spend_limit_reached',
]);

/** Whether an error body names a billing or spend wall rather than a rate limit. */
export function isQuotaExhaustedBody(body: Json | undefined): boolean {
  const e = errorObject(body);
  if (!e) return false;
  const details = isObj(e.details) ? e.details : undefined;
  return [e.code, e.type, details?.error_code].some((v) => typeof v === 'string' && QUOTA_CODES.has(v));
}

/** Whether an error body says "overloaded" whatever its status (Anthropic's 500 api_error "Overloaded"). */
export function isOverloadedBody(body: Json | undefined): boolean {
  const e = errorObject(body);
  if (!e) return false;
  return (
    e.type === 'overloaded_error' ||
    e.code === 'server_is_overloaded' ||
    e.message === 'Overloaded' ||
    e.status === 'UNAVAILABLE'
  );
}
