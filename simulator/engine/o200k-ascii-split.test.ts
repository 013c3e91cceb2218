import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it } from 'vitest';
import { isAscii, o200kAsciiPieceEnd } from './o200k-ascii-split.js';

const SPLIT = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'gu');

function byPattern(text: string): string[] {
  return [...text.matchAll(SPLIT)].map((m) => m[0]);
}

function byScanner(text: string, start = 0, end = text.length): string[] {
  const out: string[] = [];
  for (let i = start; i < end;) {
    const j = o200kAsciiPieceEnd(text, i, end);
    expect(j, JSON.stringify(text.slice(start, end))).toBeGreaterThan(i);
    out.push(text.slice(i, j));
    i = j;
  }
  return out;
}

describe('o200kAsciiPieceEnd', () => {
  it('cuts pieces where the split pattern does, on texts a prompt is made of', () => {
    for (const s of [
      '[tl:rc28sl-123456] Supposing almost entwine. Sure-footed brace ah',
      "It's 2026-11-30: 12345 tokens/s? Don't   panic!\n\n  x",
      "I'LL we'Re they've she'd 'S rock'n'roll '",
      'USA McDonald iPhone aB Ab AB ab',
      ' \n \r\n\t\tx  \t y \x0b\x0c z   ',
      ' ... ./\r\n/ .\n -- a',
      "E'\r/\x10.3i \n//\r/x",
      '\x00\x01a\x7f b\x1fc',
    ])
      expect(byScanner(s)).toEqual(byPattern(s));
  });

  it('cuts any ASCII text where the split pattern does (20 000 random texts, seeded)', () => {
    // Every ASCII character, weighted toward those the pattern treats apart.
    const alphabet = [...Array(128).keys()].map((c) => String.fromCharCode(c));
    alphabet.push(..." \n\r\t'''sStTdDlLlLvVeErR0123456789aAzZ.,/-".split(''));
    let state = 20261130;
    const next = () => {
      state = (state * 1103515245 + 12345) >>> 0;
      return state / 2 ** 32;
    };
    for (let t = 0; t < 20_000; t++) {
      let s = '';
      const len = 1 + Math.floor(next() * 24);
      for (let i = 0; i < len; i++) s += alphabet[Math.floor(next() * alphabet.length)]!;
      expect(byScanner(s), JSON.stringify(s)).toEqual(byPattern(s));
    }
  });

  it('reads `end` as the end of the text, as the pattern does a segment cut from it', () => {
    const text = 'ab  \n  cd';
    for (let start = 0; start < text.length; start++)
      for (let end = start + 1; end <= text.length; end++)
        expect(byScanner(text, start, end)).toEqual(byPattern(text.slice(start, end)));
  });
});

describe('isAscii', () => {
  it('tells ASCII text from text with any other character', () => {
    expect(isAscii('plain [tl:x-1] \x7f', 0, 16)).toBe(true);
    expect(isAscii('café', 0, 4)).toBe(false);
    expect(isAscii('café', 0, 3)).toBe(true);
  });
});
