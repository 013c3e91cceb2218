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
