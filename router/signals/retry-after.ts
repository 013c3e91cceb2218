import { parseHttpDate, parseMillis, parseSeconds } from './durations.js';
import type { HeaderGetter, WaitSource } from '../core/signals.js';

/**
 * Reads the explicit wait headers in the order the official SDKs do: `retry-after-ms`, Azure's
 * `x-ms-retry-after-ms`, then `retry-after` as delta-seconds or an HTTP-date. Negative, zero-width
 * garbage and unparseable values are ignored (and the next form is tried).
 * @see https://www.rfc-editor.org/rfc/rfc9110#field.retry-after
 * @see https://learn.microsoft.com/en-us/azure/ai-services/openai/how-to/quota
 */
export function decodeRetryAfter(get: HeaderGetter, now: number): { waitMs: number; source: WaitSource } | undefined {
  const ms = get('retry-after-ms');
  if (ms !== undefined) {
    const v = parseMillis(ms);
    if (v !== undefined) return { waitMs: v, source: 'retry-after-ms' };
  }
  const msAzure = get('x-ms-retry-after-ms');
  if (msAzure !== undefined) {
    const v = parseMillis(msAzure);
    if (v !== undefined) return { waitMs: v, source: 'x-ms-retry-after-ms' };
  }
  const ra = get('retry-after');
  if (ra !== undefined) {
    const secs = parseSeconds(ra);
    if (secs !== undefined) return { waitMs: secs, source: 'retry-after' };
    const at = parseHttpDate(ra);
    // A date in the past means "now", not a negative wait.
    if (at !== undefined) return { waitMs: Math.max(0, at - now), source: 'retry-after-date' };
  }
  return undefined;
}
