import type { LedgerRow } from '../../simulator/index.js';

/** How a provider's prompt cache served a run's answered requests. */
export interface CacheStats {
  /** Answered chat requests (status 200). */
  answered: number;
  /** Of those, how many read part of their prompt from the cache. */
  hits: number;
  /** hits / answered. */
  hitRate: number;
  inputTokens: number;
  cachedTokens: number;
  /** Tokens written to the cache (Anthropic's cache creation). */
  writeTokens: number;
  /** cachedTokens / inputTokens. */
  tokenShare: number;
}

/** The prompt-cache figures of one provider's ledger rows; undefined when it answered nothing. */
export function cacheStats(rows: readonly LedgerRow[]): CacheStats | undefined {
  let answered = 0;
  let hits = 0;
  let inputTokens = 0;
  let cachedTokens = 0;
  let writeTokens = 0;
  for (const r of rows) {
    if (r.status !== 200 || (r.endpoint !== 'chat' && r.endpoint !== 'responses')) continue;
    answered++;
    inputTokens += r.tokensIn;
    if (r.cacheRead) {
      hits++;
      cachedTokens += r.cacheRead;
    }
    writeTokens += r.cacheWrite ?? 0;
  }
  if (answered === 0) return undefined;
  const ratio = (a: number, b: number) => (b > 0 ? Number((a / b).toFixed(4)) : 0);
  return {
    answered,
    hits,
    hitRate: ratio(hits, answered),
    inputTokens,
    cachedTokens,
    writeTokens,
    tokenShare: ratio(cachedTokens, inputTokens),
  };
}

/** `anthropic 80% of answers hit the prompt cache (75% of input tokens)`, for text and HTML reports. */
export function cacheLine(id: string, c: CacheStats): string {
  const pct = (v: number) => `${Math.round(v * 100)}%`;
  const writes = c.writeTokens > 0 ? `, ${c.writeTokens.toLocaleString('en-US')} tokens written` : '';
  return `${id} ${pct(c.hitRate)} of ${c.answered} answers hit the prompt cache (${pct(c.tokenShare)} of input tokens${writes})`;
}
