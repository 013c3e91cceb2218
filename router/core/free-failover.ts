import type { AttemptRecord } from './types.js';

/**
 * Whether the extra attempt to `next` is a failover the retry budget does not pay for: the last
 * attempt was refused for quota with an announced window (a 429 saying when to come back), and
 * `next` is another target. The budget exists so that a provider's trouble does not draw a retry
 * storm; a quota refusal is not trouble, its target is closed for the window it announced, and the
 * next attempt lands on capacity this request has not touched. Amplification stays bounded by the
 * targets per window (each closes on its first refusal) and by `maxAttempts` per request. Retries
 * of the same target, and failovers after 5xx, 529 or timeouts, still pay.
 * @see docs/decisions/free-quota-failover.md
 */
export function isFreeFailover(last: AttemptRecord | undefined, next: string): boolean {
  if (!last || last.target === next) return false;
  if (last.outcome !== 'rate_limited' && last.outcome !== 'quota_exhausted') return false;
  return last.waitMs !== undefined && last.waitMs > 0;
}
