import { parseSeconds } from './durations.js';
import type { HeaderGetter, LimitSignal } from '../core/signals.js';

function family(get: HeaderGetter, name: string, now: number): LimitSignal | undefined {
  const num = (t: string | undefined) => (t !== undefined && /^\d+$/.test(t.trim()) ? Number(t) : undefined);
  const limit = num(get(`x-ratelimit-limit-${name}`));
  const remaining = num(get(`x-ratelimit-remaining-${name}`));
  const reset = get(`x-ratelimit-reset-${name}`);
  const resetMs = reset === undefined ? undefined : parseSeconds(reset);
  if (limit === undefined && remaining === undefined && resetMs === undefined) return undefined;
  return { limit, remaining, resetAt: resetMs === undefined ? undefined : now + resetMs };
}

/**
 * Decodes Cerebras's `x-ratelimit-{limit,remaining,reset}-{requests-day,tokens-minute}` (resets in
 * float seconds); a `-requests-minute` family, when present, is the tighter request signal.
 * @see https://inference-docs.cerebras.ai/support/rate-limits
 */
export function decodeCerebrasHeaders(
  get: HeaderGetter,
  now: number,
): { requests?: LimitSignal; tokens?: LimitSignal } {
  return {
    requests: family(get, 'requests-minute', now) ?? family(get, 'requests-day', now),
    tokens: family(get, 'tokens-minute', now),
  };
}
