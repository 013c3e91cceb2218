import { describe, expect, it } from 'vitest';
import { CacheAffinity, placeCold, preferWarm } from './cache-affinity.js';

const ranked = (...targets: string[]) => targets.map((target, i) => ({ target, score: 1 - i / 10 }));
/** Prefixes longest first, each of `tokens`. */
const prefixes = (...keys: string[]) => keys.map((key, i) => ({ key, tokens: 1000 * (keys.length - i) }));

describe('CacheAffinity', () => {
  it('sends a prefix back to the target that served it, the longest warm prefix first', () => {
    const a = new CacheAffinity({ ttlMs: 300_000, maxEntries: 100 });
    a.remember(prefixes('conv1-turn1', 'system-x'), 'p1/k1/m', 0);
    a.remember(prefixes('conv2-turn1', 'system-x'), 'p2/k1/m', 10);
    expect(a.lookup(prefixes('conv1-turn2', 'conv1-turn1', 'system-x'), 20)).toEqual({
      target: 'p1/k1/m',
      tokens: 2000,
    });
    // Only the shared system prompt is known: it was last warmed at p2.
    expect(a.lookup(prefixes('conv3-turn1', 'system-x'), 20)).toEqual({ target: 'p2/k1/m', tokens: 1000 });
    expect(a.lookup(prefixes('unknown'), 20)).toBeUndefined();
  });

  it('forgets a prefix once its TTL has passed since the last use, and a use renews it', () => {
    const a = new CacheAffinity({ ttlMs: 1000, maxEntries: 100 });
    a.remember(prefixes('p'), 't1', 0);
    expect(a.lookup(prefixes('p'), 999)?.target).toBe('t1');
    a.remember(prefixes('p'), 't1', 999);
    expect(a.lookup(prefixes('p'), 1998)?.target).toBe('t1');
    expect(a.lookup(prefixes('p'), 1999)).toBeUndefined();
    expect(a.size).toBe(0);
  });

  it('stays within maxEntries, forgetting the least recently used', () => {
    const a = new CacheAffinity({ ttlMs: 1000, maxEntries: 2 });
    a.remember(prefixes('a'), 't', 0);
    a.remember(prefixes('b'), 't', 0);
    a.remember(prefixes('a'), 't', 1);
    a.remember(prefixes('c'), 't', 2);
    expect(a.size).toBe(2);
    expect(a.lookup(prefixes('b'), 3)).toBeUndefined();
    expect(a.lookup(prefixes('a'), 3)?.target).toBe('t');
    for (let i = 0; i < 10_000; i++) a.remember(prefixes(`k${i}`), 't', 4);
    expect(a.size).toBe(2);
  });
});

describe('preferWarm', () => {
  it('puts the warm target first when it can serve', () => {
    expect(preferWarm(ranked('a', 'b', 'c'), 'c').map((r) => r.target)).toEqual(['c', 'a', 'b']);
    expect(preferWarm(ranked('a', 'b', 'c'), 'a').map((r) => r.target)).toEqual(['a', 'b', 'c']);
  });

  it('falls back to the normal ranking when the warm target is not among those that can serve', () => {
    // A target without capacity or with an open circuit is filtered out before ranking.
    expect(preferWarm(ranked('a', 'b'), 'c').map((r) => r.target)).toEqual(['a', 'b']);
    expect(preferWarm(ranked('a', 'b'), undefined).map((r) => r.target)).toEqual(['a', 'b']);
  });
});

describe('CacheAffinity claims', () => {
  it('sends followers to the target a cold prefix is in flight at, reserving none of it', () => {
    const a = new CacheAffinity({ ttlMs: 1000, maxEntries: 100 });
    a.claim(prefixes('turn1', 'system-x'), 'p1/k1/m', 0);
    expect(a.lookup(prefixes('turn1', 'system-x'), 10)).toEqual({ target: 'p1/k1/m', tokens: 0 });
    a.remember(prefixes('turn1', 'system-x'), 'p1/k1/m', 50);
    expect(a.lookup(prefixes('system-x'), 60)).toEqual({ target: 'p1/k1/m', tokens: 1000 });
  });

  it('forgets a claim given the claiming attempt failed, and never a prefix warm elsewhere', () => {
    const a = new CacheAffinity({ ttlMs: 1000, maxEntries: 100 });
    a.remember(prefixes('system-x'), 'p1/k2/m', 0);
    a.claim(prefixes('turn1', 'system-x'), 'p1/k1/m', 10);
    expect(a.lookup(prefixes('system-x'), 20)?.target).toBe('p1/k2/m');
    a.release(prefixes('turn1', 'system-x'), 'p1/k1/m');
    expect(a.lookup(prefixes('turn1'), 20)).toBeUndefined();
    expect(a.lookup(prefixes('system-x'), 20)?.target).toBe('p1/k2/m');
  });

  it('keeps a prefix answered at the claimed target after its claim is released', () => {
    const a = new CacheAffinity({ ttlMs: 1000, maxEntries: 100 });
    a.claim(prefixes('system-x'), 'p1/k1/m', 0);
    a.remember(prefixes('system-x'), 'p1/k1/m', 5);
    a.release(prefixes('system-x'), 'p1/k1/m');
    expect(a.lookup(prefixes('system-x'), 10)?.target).toBe('p1/k1/m');
  });
});

describe('placeCold', () => {
  const t = (provider: string, key: string, model = 'm') => ({ provider, key, model });
  const room: Record<string, number> = { k1: 0.1, k2: 0.9, k3: 0.5, x: 1 };
  const headroom = (x: { key: string }) => room[x.key]!;

  it("puts the roomiest of the best-ranked provider's keys for the model first, the rest in order", () => {
    const ranked = [t('a', 'k1'), t('b', 'x'), t('a', 'k3'), t('a', 'k2')];
    expect(placeCold(ranked, headroom)).toEqual([t('a', 'k2'), t('a', 'k1'), t('b', 'x'), t('a', 'k3')]);
  });

  it('never moves another provider or model ahead, however roomy, and keeps ties in ranked order', () => {
    expect(placeCold([t('a', 'k3'), t('b', 'x'), t('a', 'x', 'other')], headroom)).toEqual([
      t('a', 'k3'),
      t('b', 'x'),
      t('a', 'x', 'other'),
    ]);
    const tied = [t('a', 'k3'), t('a', 'k3b')];
    expect(placeCold(tied, () => 0.5)).toEqual(tied);
    expect(placeCold([], headroom)).toEqual([]);
  });
});
