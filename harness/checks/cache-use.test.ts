import { describe, expect, it } from 'vitest';
import { input, outcome, row, world } from '../../test/helpers/evidence.js';
import { checkCacheUse } from './cache-use.js';

// A hinted request of one conversation: its prefix long enough to cache at OpenAI (1024 tokens).
const hinted = JSON.stringify({ pck: 'conversation-1', px: 'abcd0123', pt: 2000, n: 1 });
const scenario = world();

/** Request `i` of the conversation, sent to `key` at `i` seconds. */
function attempt(i: number, key: string, request = hinted, cacheRead?: number) {
  return {
    o: outcome({ id: `r${i}`, at: i * 1000, request: hinted }),
    r: row({ at: i * 1000, correlationId: `r${i}`, key, request, tokensIn: 2100, ...(cacheRead ? { cacheRead } : {}) }),
  };
}

function run(list: Array<ReturnType<typeof attempt>>) {
  return checkCacheUse(input({ outcomes: list.map((a) => a.o), rows: list.map((a) => a.r), scenario }));
}

describe('checkCacheUse', () => {
  it('passes requests kept on the key whose cache holds their prefix', () => {
    const r = run([0, 1, 2, 3, 4].map((i) => attempt(i, 'main', hinted, i ? 2000 : undefined)));
    expect(r).toMatchObject({ verdict: 'pass', violations: 0 });
  });

  it('fails shared prefixes sprayed over keys: each conversation’s second request on the other key', () => {
    const list = [0, 1, 2, 3].flatMap((c) => {
      const request = JSON.stringify({ pck: `conversation-${c}`, px: `prefix-${c}`, pt: 2000, n: 1 });
      const first = attempt(2 * c, 'main', request);
      const second = attempt(2 * c + 1, 'second', request);
      return [
        { o: { ...first.o, request }, r: first.r },
        { o: { ...second.o, request }, r: second.r },
      ];
    });
    const r = run(list);
    expect(r.verdict).toBe('fail');
    expect(r.violations).toBe(4);
    expect(r.evidence[0]!.detail).toMatch(/sent to key second .* while its prefix was cached on main/);
  });

  it('fails an attempt that lost the prompt_cache_key', () => {
    const r = run([attempt(0, 'main', JSON.stringify({ px: 'abcd0123', n: 1 }))]);
    expect(r.verdict).toBe('fail');
    expect(r.evidence[0]!.detail).toBe('openai: prompt_cache_key "conversation-1" sent as none');
  });

  it('skips with a reason when no request carried a cache hint', () => {
    const r = checkCacheUse(input({ outcomes: [outcome({ id: 'a' })], rows: [row({ correlationId: 'a' })] }));
    expect(r).toMatchObject({ verdict: 'skip', reason: expect.stringMatching(/cache hint/) });
  });
});
