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
  return drawWords(vocabulary, rng, count, new Array<string>(count));
}

const scratch: string[] = [];

/**
 * The text of {@link generateTokens} (the same draws from `rng`, the same words), built as one
 * string: for prompts, which are only ever used whole.
 */
export function generateText(vocabulary: Vocabulary, rng: Rng, count: number): string {
  scratch.length = count;
  return drawWords(vocabulary, rng, count, scratch).join('');
}

// Fills out[0, count) with words drawn in order.
function drawWords(vocabulary: Vocabulary, rng: Rng, count: number, out: string[]): string[] {
  const forms = formsOf(vocabulary);
  let sentenceLeft = 0;
  for (let i = 0; i < count; i++) {
    const word = (rng.next() * forms.size) | 0;
    let form = 0;
    if (sentenceLeft === 0) {
      form = CAPITALISED;
      sentenceLeft = randomInt(rng, 6, 14);
    }
    sentenceLeft--;
    if (sentenceLeft === 0 || i === count - 1) form |= CLOSED;
    out[i] = (i === 0 ? forms.first : forms.spaced)[form]![word]!;
  }
  return out;
}

// Sentences of 6 to 14 words: a sentence's first word capitalised, its last closed with a
// period. Each word's four forms, with and without its leading space, are made once per
// vocabulary rather than per word drawn (a capital, a period and a space are three strings).
const CAPITALISED = 1;
const CLOSED = 2;

interface Forms {
  size: number;
  /** By form (CAPITALISED | CLOSED), by word: the text a first token is. */
  first: string[][];
  /** The same with the leading space every later token has. */
  spaced: string[][];
}

const formsByVocabulary = new WeakMap<Vocabulary, Forms>();

function formsOf(vocabulary: Vocabulary): Forms {
  let forms = formsByVocabulary.get(vocabulary);
  if (forms) return forms;
  const first: string[][] = [];
  for (let form = 0; form < 4; form++)
    first.push(
      vocabulary.words.map((w) => {
        const word = form & CAPITALISED ? w[0]!.toUpperCase() + w.slice(1) : w;
        return form & CLOSED ? `${word}.` : word;
      }),
    );
  forms = { size: vocabulary.words.length, first, spaced: first.map((words) => words.map((w) => ` ${w}`)) };
  formsByVocabulary.set(vocabulary, forms);
  return forms;
}

/** The text of `tokens` as a JSON string literal, skipping the escape scan when it cannot matter. */
export function quoteText(vocabulary: Vocabulary, text: string): string {
  return vocabulary.plain ? `"${text}"` : JSON.stringify(text);
}
