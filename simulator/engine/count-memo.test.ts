import { describe, expect, it } from 'vitest';
import { CountMemo, hashChars } from './count-memo.js';

describe('CountMemo', () => {
  it('finds a remembered count by a slice of any text, and nothing for other slices', () => {
    const memo = new CountMemo();
    const h = hashChars(' word', 0, 5);
    expect(memo.get(' word', 0, 5, h)).toBe(-1);
    memo.set(' word', 0, 5, h, 1);
    const text = 'a word, a sword';
    expect(hashChars(text, 1, 6)).toBe(h);
    expect(memo.get(text, 1, 6, h)).toBe(1);
    expect(memo.get(text, 9, 15, hashChars(text, 9, 15))).toBe(-1);
  });

  it('admits a slice the second time it is offered, not the first', () => {
    const memo = new CountMemo();
    const h = hashChars('[tl:r1-7]', 0, 9);
    expect(memo.admits(h)).toBe(false);
    expect(memo.admits(h)).toBe(true);
  });

  it('keeps answering exactly once full enough to start afresh', () => {
    const memo = new CountMemo();
    for (let i = 0; i < 100_000; i++) {
      const key = `k${i}`;
      const h = hashChars(key, 0, key.length);
      if (memo.get(key, 0, key.length, h) < 0) memo.set(key, 0, key.length, h, i);
      expect(memo.get(key, 0, key.length, h)).toBe(i);
    }
  });
});
