import { parseGoDuration, parseSeconds } from './durations.js';
import type { HeaderGetter, LimitSignal } from '../core/signals.js';

function int(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text.trim())) return undefined;
  return Number(text);
}

// Azure reports "-1" (and a zero reset) when it does not know its limits: treat as unknown.
function reset(text: string | undefined, now: number): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseGoDuration(text) ?? parseSeconds(text);
  return ms === undefined ? undefined : now + ms;
}

// Each unit's header names, written out: looked up on every response, a name built per call would
// be a new string to hash each time.
const NAMES = {
  requests: {
    limit: 'x-ratelimit-limit-requests',
    remaining: 'x-ratelimit-remaining-requests',
    reset: 'x-ratelimit-reset-requests',
    resetAlt: 'x-rate-limit-reset-requests',
  },
  tokens: {
    limit: 'x-ratelimit-limit-tokens',
    remaining: 'x-ratelimit-remaining-tokens',
    reset: 'x-ratelimit-reset-tokens',
    resetAlt: 'x-rate-limit-reset-tokens',
  },
};

function family(get: HeaderGetter, unit: 'requests' | 'tokens', now: number): LimitSignal | undefined {
  const n = NAMES[unit];
  const limit = int(get(n.limit));
  const remaining = int(get(n.remaining));
  const resetAt = reset(get(n.reset) ?? get(n.resetAlt), now);
  if (limit === undefined && remaining === undefined && resetAt === undefined) return undefined;
  return { limit, remaining, resetAt };
}

/**
 * Decodes the `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` family of OpenAI, Groq and
 * Azure: resets as Go durations (`6m0s`, `12ms`) or Azure's integer seconds, `-1` as unknown.
 * @see https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers
 * @see https://console.groq.com/docs/rate-limits
 */
export function decodeXRateLimit(get: HeaderGetter, now: number): { requests?: LimitSignal; tokens?: LimitSignal } {
  return { requests: family(get, 'requests', now), tokens: family(get, 'tokens', now) };
}
