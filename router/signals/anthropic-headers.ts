import { parseRfc3339 } from './durations.js';
import type { HeaderGetter, LimitSignal } from '../core/signals.js';

function family(get: HeaderGetter, name: string): LimitSignal | undefined {
  const limit = get(`anthropic-ratelimit-${name}-limit`);
  const remaining = get(`anthropic-ratelimit-${name}-remaining`);
  const reset = get(`anthropic-ratelimit-${name}-reset`);
  if (limit === undefined && remaining === undefined && reset === undefined) return undefined;
  const num = (t: string | undefined) => (t !== undefined && /^\d+$/.test(t.trim()) ? Number(t) : undefined);
  return {
    limit: num(limit),
    remaining: num(remaining),
    resetAt: reset !== undefined ? parseRfc3339(reset) : undefined,
  };
}

function tightest(...signals: Array<LimitSignal | undefined>): LimitSignal | undefined {
  let best: LimitSignal | undefined;
  for (const s of signals) {
    if (!s || s.remaining === undefined) continue;
    const ratio = s.limit ? s.remaining / s.limit : s.remaining;
    const bestRatio = best ? (best.limit ? best.remaining! / best.limit : best.remaining!) : Infinity;
    if (ratio < bestRatio) best = s;
  }
  return best;
}

/**
 * Decodes `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-*` with RFC 3339
 * resets; the token signal is the tightest of the token families.
 * @see https://docs.anthropic.com/en/api/rate-limits#response-headers
 */
export function decodeAnthropicHeaders(get: HeaderGetter): { requests?: LimitSignal; tokens?: LimitSignal } {
  return {
    requests: family(get, 'requests'),
    tokens: tightest(family(get, 'input-tokens'), family(get, 'output-tokens'), family(get, 'tokens')),
  };
}
