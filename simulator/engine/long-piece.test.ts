import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { countLongPiece, PIECE_MAX_CHARS, SAMPLED_CHUNKS } from './long-piece.js';

function lcgWord(length: number, alphabet: readonly string[], seed = 3): string {
  let state = seed;
  let s = '';
  while (s.length < length) {
    state = (state * 1103515245 + 12345) >>> 0;
    s += alphabet[state % alphabet.length]!;
  }
  return s;
}

// The encoder, recording what it is given.
function recording() {
  const calls: string[] = [];
  return { calls, count: (chunk: string) => (calls.push(chunk), countTokens(chunk)) };
}

describe('countLongPiece', () => {
  it('encodes every chunk of a piece of at most 16 chunks, each at most PIECE_MAX_CHARS', () => {
    const word = lcgWord(10 * PIECE_MAX_CHARS + 17, [...'abcdefghijklmnopqrstuvwxyz']);
    const { calls, count } = recording();
    const n = countLongPiece(word, 0, word.length, count);
    expect(calls.join('')).toBe(word);
    expect(Math.max(...calls.map((c) => c.length))).toBeLessThanOrEqual(PIECE_MAX_CHARS);
    // Each cut adds a token or so to the whole word's count.
    const exact = countTokens(word);
    expect(n - exact).toBeGreaterThanOrEqual(0);
    expect(n - exact).toBeLessThanOrEqual(calls.length);
  });

  it('encodes at most SAMPLED_CHUNKS chunks whatever the length, given a megabyte', () => {
    const word = lcgWord(1 << 20, [...'абвгдежзийклмнопрстуфхцчшщ']);
    const { calls, count } = recording();
    const n = countLongPiece(word, 0, word.length, count);
    expect(calls).toHaveLength(SAMPLED_CHUNKS);
    expect(calls[0]).toBe(word.slice(0, PIECE_MAX_CHARS));
    expect(calls.at(-1)).toBe(word.slice(word.length - (word.length % PIECE_MAX_CHARS || PIECE_MAX_CHARS)));
    const perChunk = calls.reduce((t, c) => t + countTokens(c), 0) / SAMPLED_CHUNKS;
    expect(n).toBe(Math.round((perChunk * word.length) / PIECE_MAX_CHARS));
  });

  it('scales a sample to within 3 % of the exact count, given a 6 000-character word', () => {
    for (const alphabet of [[...'abcdefghijklmnopqrstuvwxyz'], [...'中文字符测试汉语'], ['😀', '🎉', '🚀', '👍']]) {
      const word = lcgWord(6000, alphabet);
      const exact = countTokens(word);
      const n = countLongPiece(word, 0, word.length, countTokens);
      expect(Math.abs(n - exact) / exact, alphabet.join('')).toBeLessThan(0.03);
    }
  });

  it('never splits a surrogate pair, given emoji across every cut', () => {
    const word = 'x' + '🚀'.repeat(3 * PIECE_MAX_CHARS);
    const { calls, count } = recording();
    countLongPiece(word, 0, word.length, count);
    expect(calls.join('')).toBe(word);
    for (const c of calls) expect(Buffer.from(c).toString(), JSON.stringify(c.slice(-2))).toBe(c);
  });
});
