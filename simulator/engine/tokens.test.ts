import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { countPromptTokens, estimateTokens, tokenRuleFor } from './tokens.js';

describe('countPromptTokens', () => {
  const text = 'Quantum flux capacitors rarely misbehave on Tuesdays, said nobody ever.';
  it("counts OpenAI-family prompts with o200k_base and OpenAI's chat framing", () => {
    expect(countPromptTokens('openai', text, 1)).toBe(countTokens(text) + 7);
    expect(countPromptTokens('azure-openai', text, 2)).toBe(countTokens(text) + 11);
    expect(countPromptTokens('openai', 'abcd efgh\nijkl', 2, false)).toBe(
      countTokens('abcd efgh') + countTokens('ijkl'),
    );
  });
  it('differs from the estimate a router makes from characters', () => {
    for (const vendor of ['openai', 'groq', 'mistral'])
      expect(countPromptTokens(vendor, text, 1), vendor).not.toBe(estimateTokens(text, 1));
  });
  it('uses the documented approximation where no public tokenizer exists', () => {
    expect(tokenRuleFor('anthropic')).toBe('anthropic');
    expect(countPromptTokens('anthropic', 'x'.repeat(36), 1)).toBe(12);
    expect(tokenRuleFor('vertex-ai')).toBe('gemini');
    expect(countPromptTokens('gemini', 'x'.repeat(40), 1)).toBe(10);
  });
  it('counts exactly as the whole-text encoder does, piece by piece (memoised)', () => {
    const samples = [
      text,
      "It's 2026-11-30: 12345 tokens/s? Don't   panic!\n\n  — naïve café, 東京, emoji 🚀🚀",
      '[tl:r2t-17] Voluptas quidem cumque. Amor tenax vestrum.',
      '',
    ];
    for (const s of samples) {
      expect(countPromptTokens('openai', s, 1)).toBe(countTokens(s) + 7);
      expect(countPromptTokens('openai', s, 1)).toBe(countTokens(s) + 7);
    }
  });
});

describe('o200k counting by segments', () => {
  // Characters that matter to the split pattern: spaces of every kind, line ends, letters of each
  // case and script, marks, digits, apostrophes (contractions), punctuation, slashes, emoji.
  const ALPHABET = [
    ' ',
    ' ',
    ' ',
    ' ',
    '  ',
    '\t',
    '\n',
    '\r\n',
    '\r',
    '\u00a0',
    '\u2003',
    '\u3000',
    '\ufeff',
    'a',
    'b',
    'z',
    'A',
    'Q',
    'é',
    'É',
    'ß',
    'ǅ',
    'ʰ',
    '東',
    '\u0301',
    'ь',
    '0',
    '7',
    '42',
    '123456',
    '٣',
    "'",
    "'s",
    "'LL",
    "'re",
    '’',
    '.',
    ',',
    '!',
    '?',
    '-',
    '—',
    '/',
    '[',
    ']',
    ':',
    '"',
    '🚀',
    '\ud83d',
    'Hello',
    'hello',
    'USA',
    'McDonald',
    'iPhone',
    'quidem',
  ];

  it('counts any text exactly as the whole-text encoder does (4 000 random texts, seeded)', () => {
    let state = 12345;
    const next = () => {
      state = (state * 1103515245 + 12345) >>> 0;
      return state / 2 ** 32;
    };
    for (let t = 0; t < 4000; t++) {
      let s = '';
      const len = 1 + Math.floor(next() * 40);
      for (let i = 0; i < len; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)]!;
      expect(countPromptTokens('openai', s, 1), JSON.stringify(s)).toBe(countTokens(s) + 7);
    }
  });

  it('counts prompts made of words with single spaces, edge spaces and runs of spaces', () => {
    for (const s of [
      ' leading',
      'trailing ',
      '  two leading',
      'two trailing  ',
      'a b',
      ' ',
      '  ',
      'x',
      'a  b   c\t d \n e',
    ]) {
      expect(countPromptTokens('openai', s, 1), JSON.stringify(s)).toBe(countTokens(s) + 7);
    }
  });
});
