import type { HeaderGetter, LimitSignal } from '../core/signals.js';

const num = (t: string | undefined) => (t !== undefined && /^\d+$/.test(t.trim()) ? Number(t) : undefined);

/**
 * Decodes OpenRouter's `X-RateLimit-{Limit,Remaining,Reset}`, sent on 429s, whose reset is an
 * epoch in milliseconds (epoch seconds and small delta-seconds are read too, as the draft's
 * appendix warns the family is written every way).
 * @see https://openrouter.ai/docs/api-reference/limits
 */
export function decodeOpenRouterHeaders(get: HeaderGetter, now: number): { requests?: LimitSignal } {
  const limit = num(get('x-ratelimit-limit'));
  const remaining = num(get('x-ratelimit-remaining'));
  const reset = num(get('x-ratelimit-reset'));
  if (limit === undefined && remaining === undefined && reset === undefined) return {};
  const resetAt =
    reset === undefined ? undefined : reset > 1e12 ? reset : reset > 1e9 ? reset * 1000 : now + reset * 1000;
  return { requests: { limit, remaining, resetAt } };
}
