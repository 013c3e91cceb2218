import { describe, expect, it } from 'vitest';
import { createRng, deriveSeed, randomInt } from './rng.js';

describe('createRng', () => {
  it('replays the same sequence given the same seed', () => {
    const a = createRng(42);
    const b = createRng(42);
    const seqA = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(seqA);
  });

  it('draws different sequences for different seeds', () => {
    expect(createRng(1).next()).not.toBe(createRng(2).next());
  });

  it('stays in [0, 1) with a mean near one half', () => {
    const rng = createRng(7);
    let sum = 0;
    for (let i = 0; i < 10_000; i++) {
      const x = rng.next();
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
      sum += x;
    }
    expect(sum / 10_000).toBeCloseTo(0.5, 1);
  });
});

describe('deriveSeed', () => {
  it('gives independent, stable child seeds per path', () => {
    expect(deriveSeed(9, 1, 2)).toBe(deriveSeed(9, 1, 2));
    expect(deriveSeed(9, 1, 2)).not.toBe(deriveSeed(9, 2, 1));
    expect(deriveSeed(9, 1, 2)).not.toBe(deriveSeed(10, 1, 2));
  });
});

describe('randomInt', () => {
  it('covers both ends of the range', () => {
    const rng = createRng(3);
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++) seen.add(randomInt(rng, 1, 3));
    expect([...seen].sort()).toEqual([1, 2, 3]);
  });
});
