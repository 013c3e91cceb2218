import { parseSeconds } from './durations.js';
import type { HeaderGetter, LimitSignal } from '../core/signals.js';

const num = (t: string | undefined) => (t !== undefined && /^\d+$/.test(t.trim()) ? Number(t) : undefined);

/**
 * Decodes Together's `x-ratelimit-{limit,remaining,reset}` (requests, reset in seconds) and
 * `x-tokenlimit-{limit,remaining}` (tokens, no reset).
 * @see https://docs.together.ai/docs/serverless/rate-limits
 */
export function decodeTogetherHeaders(
  get: HeaderGetter,
  now: number,
): { requests?: LimitSignal; tokens?: LimitSignal } {
  const limit = num(get('x-ratelimit-limit'));
  const remaining = num(get('x-ratelimit-remaining'));
  const reset = get('x-ratelimit-reset');
  const resetMs = reset === undefined ? undefined : parseSeconds(reset);
  const tokLimit = num(get('x-tokenlimit-limit'));
  const tokRemaining = num(get('x-tokenlimit-remaining'));
  return {
    requests:
      limit === undefined && remaining === undefined
        ? undefined
        : { limit, remaining, resetAt: resetMs === undefined ? undefined : now + resetMs },
    tokens:
      tokLimit === undefined && tokRemaining === undefined ? undefined : { limit: tokLimit, remaining: tokRemaining },
  };
}
