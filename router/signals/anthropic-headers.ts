import { parseRfc3339 } from './durations.js';
import type { HeaderGetter, LimitSignal } from '../core/signals.js';

type Family = 'requests' | 'input-tokens' | 'output-tokens' | 'tokens';

// Each family's header names, written out: looked up on every response, a name built per call
// would be a new string to hash each time.
const NAMES: Record<Family, { limit: string; remaining: string; reset: string }> = {
  requests: {
    limit: 'anthropic-ratelimit-requests-limit',
    remaining: 'anthropic-ratelimit-requests-remaining',
    reset: 'anthropic-ratelimit-requests-reset',
  },
  'input-tokens': {
    limit: 'anthropic-ratelimit-input-tokens-limit',
    remaining: 'anthropic-ratelimit-input-tokens-remaining',
    reset: 'anthropic-ratelimit-input-tokens-reset',
  },
  'output-tokens': {
    limit: 'anthropic-ratelimit-output-tokens-limit',
    remaining: 'anthropic-ratelimit-output-tokens-remaining',
    reset: 'anthropic-ratelimit-output-tokens-reset',
  },
  tokens: {
    limit: 'anthropic-ratelimit-tokens-limit',
    remaining: 'anthropic-ratelimit-tokens-remaining',
    reset: 'anthropic-ratelimit-tokens-reset',
  },
};

const num = (t: string | undefined) => (t !== undefined && /^\d+$/.test(t.trim()) ? Number(t) : undefined);

function family(get: HeaderGetter, name: Family): LimitSignal | undefined {
  const n = NAMES[name];
  const limit = get(n.limit);
  const remaining = get(n.remaining);
  const reset = get(n.reset);
  if (limit === undefined && remaining === undefined && reset === undefined) return undefined;
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
