import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.js';
import { createVocabulary, generateText, generateTokens } from './vocabulary.js';

describe('vocabulary', () => {
  it('builds the same words for a seed whether built afresh or reused, and other words for another seed', () => {
    const a = createVocabulary(41);
    expect(createVocabulary(41)).toBe(a);
    expect(createVocabulary(41, 512).words).not.toEqual(a.words);
    expect(createVocabulary(42).words).not.toEqual(a.words);
    expect(a.words).toHaveLength(new Set(a.words).size);
    expect(Object.isFrozen(a.words)).toBe(true);
  });

  it('writes as text exactly the tokens it draws, for any count and seed', () => {
    const vocabulary = createVocabulary(7);
    for (let seed = 1; seed <= 50; seed++) {
      for (const count of [1, 2, 13, 150, 400]) {
        const text = generateText(vocabulary, createRng(seed), count);
        expect(text).toBe(generateTokens(vocabulary, createRng(seed), count).join(''));
      }
    }
    expect(generateText(vocabulary, createRng(1), 0)).toBe('');
  });
});
