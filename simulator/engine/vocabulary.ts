import { faker } from '@faker-js/faker/locale/en';
import { randomInt, type Rng } from '../core/rng.js';

/** Words a simulated model speaks in, drawn once from a seeded faker. */
export interface Vocabulary {
  readonly words: readonly string[];
  /** No word needs escaping in JSON, so text from it can be quoted as is. */
  readonly plain: boolean;
}

// Built vocabularies by seed and size: a vocabulary is a pure function of both (faker is seeded
// afresh for each, and nothing else draws from it), and drawing one takes thousands of faker
// samples, a few milliseconds, at every run's start. Frozen, since runs share them.
const built = new Map<string, Vocabulary>();
const BUILT_MAX = 64;

/**
 * Builds a vocabulary from faker seeded with `seed` (once per seed and size in a process).
 * Answers are then drawn from it with each request's own seeded Rng, which keeps the response
 * path cheap and every answer replayable.
 */
export function createVocabulary(seed: number, size = 2048): Vocabulary {
  const key = `${seed}:${size}`;
  const known = built.get(key);
  if (known) return known;
  faker.seed(seed);
  const words = new Set<string>();
  for (let i = 0; words.size < size && i < size * 8; i++) words.add(faker.word.sample());
  const list = Object.freeze([...words]);
  const vocabulary = Object.freeze({ words: list, plain: list.every((w) => JSON.stringify(w) === `"${w}"`) });
  if (built.size >= BUILT_MAX) built.clear();
  built.set(key, vocabulary);
  return vocabulary;
}

/**
 * Draws `count` content tokens: one word per token, each with its leading space, sentences
 * capitalised and closed with a period, so that usage counts equal the tokens streamed.
 */
export function generateTokens(vocabulary: Vocabulary, rng: Rng, count: number): string[] {
  const out: string[] = new Array(count);
  const draw = wordDraw(vocabulary, rng, count);
  for (let i = 0; i < count; i++) out[i] = i === 0 ? draw(i) : ` ${draw(i)}`;
  return out;
}

/**
 * The text of {@link generateTokens} (the same draws from `rng`, the same words), built as one
 * string: for prompts, which are only ever used whole.
 */
export function generateText(vocabulary: Vocabulary, rng: Rng, count: number): string {
  let out = '';
  const draw = wordDraw(vocabulary, rng, count);
  for (let i = 0; i < count; i++) out += i === 0 ? draw(i) : ` ${draw(i)}`;
  return out;
}

/** The `i`-th of `count` words, drawn in order: sentences of 6 to 14 words, capitalised and closed with a period. */
function wordDraw(vocabulary: Vocabulary, rng: Rng, count: number): (i: number) => string {
  const words = vocabulary.words;
  let sentenceLeft = 0;
  return (i) => {
    let word = words[(rng.next() * words.length) | 0]!;
    if (sentenceLeft === 0) {
      word = word[0]!.toUpperCase() + word.slice(1);
      sentenceLeft = randomInt(rng, 6, 14);
    }
    sentenceLeft--;
    if (sentenceLeft === 0 || i === count - 1) word += '.';
    return word;
  };
}

/** The text of `tokens` as a JSON string literal, skipping the escape scan when it cannot matter. */
export function quoteText(vocabulary: Vocabulary, text: string): string {
  return vocabulary.plain ? `"${text}"` : JSON.stringify(text);
}
