import { beforeAll, describe, expect, it } from 'vitest';
import { loadPrefixHasher, PrefixHasher } from './prefix-hasher.js';

beforeAll(() => loadPrefixHasher());

const keyOf = (...parts: string[]) => parts.reduce((h, p) => h.update(p), new PrefixHasher()).key();

describe('PrefixHasher', () => {
  it('gives the same key for the same sequence, read at any point without disturbing it', () => {
    const h = new PrefixHasher().update('user').update('hello');
    const mid = h.key();
    expect(h.key()).toBe(mid);
    expect(mid).toBe(keyOf('user', 'hello'));
    expect(h.update('assistant').key()).toBe(keyOf('user', 'hello', 'assistant'));
    expect(mid).not.toBe(keyOf('user', 'hello', 'assistant'));
  });

  it('frames each string, so splitting or padding one differently changes the key', () => {
    const keys = [
      keyOf('ab', 'c'),
      keyOf('a', 'bc'),
      keyOf('abc'),
      keyOf('abc', ''),
      keyOf('a'),
      keyOf('a\u0000'),
      keyOf(''),
      keyOf(),
      keyOf('é'),
      keyOf('\u00c3\u00a9'),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('tells apart strings differing in one code unit anywhere, long ones and non-ASCII included', () => {
    // Long, with ASCII, a surrogate pair and two-byte characters.
    const base = `${'rate limits and retries, '.repeat(655)}${'x'.repeat(8)}😀${'é'.repeat(9000)}`;
    const keys = new Set<string>([keyOf(base)]);
    for (const i of [0, 1, 7, 8, 15, 16, 16382, 16383, 16384, base.length - 1]) {
      const changed = base.slice(0, i) + (base[i] === 'a' ? 'b' : 'a') + base.slice(i + 1);
      keys.add(keyOf(changed));
    }
    // Encoded whole, the pair is not two replacement characters.
    keys.add(keyOf(base.replace('😀', '\ufffd\ufffd')));
    expect(keys.size).toBe(12);
    expect(keyOf(base)).toBe(keyOf(base));
  });

  it('gives standard XXH64 values, so the same key in every process', () => {
    // Reference vectors of XXH64 with seed 0 (the empty input, and "abc").
    expect(keyOf('')).toBe('ef46db3751d8e999');
    expect(keyOf('abc')).toBe('44bc2cf5ad770999');
  });

  it('spreads many similar strings over distinct keys', () => {
    const keys = new Set<string>();
    for (let i = 0; i < 20_000; i++) keys.add(keyOf('user', `Turn ${i}`));
    expect(keys.size).toBe(20_000);
  });
});
