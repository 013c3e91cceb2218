import { describe, expect, it } from 'vitest';
import type { LedgerRow } from '../../simulator/index.js';
import { cacheLine, cacheStats } from './cache-stats.js';

const row = (over: Partial<LedgerRow>): LedgerRow =>
  ({ status: 200, endpoint: 'chat', tokensIn: 1000, tokensOut: 10, ...over }) as LedgerRow;

describe('cacheStats', () => {
  it('counts answered requests that read from the prompt cache, and the tokens read and written', () => {
    const c = cacheStats([
      row({ cacheWrite: 900 }),
      row({ cacheRead: 900 }),
      row({ cacheRead: 900 }),
      row({}),
      row({ status: 429, tokensIn: 0 }),
      row({ endpoint: 'models' }),
    ])!;
    expect(c).toEqual({
      answered: 4,
      hits: 2,
      hitRate: 0.5,
      inputTokens: 4000,
      cachedTokens: 1800,
      writeTokens: 900,
      tokenShare: 0.45,
    });
    expect(cacheLine('anthropic', c)).toBe(
      'anthropic 50% of 4 answers hit the prompt cache (45% of input tokens, 900 tokens written)',
    );
  });

  it('has nothing to say of a provider that answered nothing', () => {
    expect(cacheStats([row({ status: 503 })])).toBeUndefined();
  });
});
