import { parseSeconds } from './durations.js';
import type { HeaderGetter, LimitSignal } from '../core/signals.js';

/**
 * Decodes Mistral's `ratelimitbysize-{limit,remaining,reset}` token headers (reset in seconds);
 * the names come from client parsers, not an official table.
 */
export function decodeMistralHeaders(get: HeaderGetter, now: number): { tokens?: LimitSignal } {
  const limit = get('ratelimitbysize-limit');
  const remaining = get('ratelimitbysize-remaining');
  const reset = get('ratelimitbysize-reset');
  if (limit === undefined && remaining === undefined) return {};
  const num = (t: string | undefined) => (t !== undefined && /^\d+$/.test(t.trim()) ? Number(t) : undefined);
  const resetMs = reset !== undefined ? parseSeconds(reset) : undefined;
  return {
    tokens: {
      limit: num(limit),
      remaining: num(remaining),
      resetAt: resetMs === undefined ? undefined : now + resetMs,
    },
  };
}
