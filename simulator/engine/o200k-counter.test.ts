import fc from 'fast-check';
import { clearMergeCache, countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.js';
import { PIECE_MAX_CHARS } from './long-piece.js';
import { createO200kCounter } from './o200k-counter.js';
import { createVocabulary, generateText } from './vocabulary.js';

// Characters long words are made of: one script at a time or mixed, multi-byte, marks, digits,
// punctuation, whitespace of every kind; and no spaces.
const UNITS = [
  'a',
  'Z',
  'é',
  'Ж',
  'ж',
  '中',
  'ก',
  'ʰ',
  'ǅ',
  '\u0301',
  '🚀',
  '👍🏽',
  '\ud83d',
  '0',
  '٣',
  "'",
  "'s",
  '.',
  '/',
  '—',
  '!',
  '\n',
  '\r\n',
  '\t',
  ' ',
  '\u00a0',
  '\u3000',
];
const unit = fc.constantFrom(...UNITS);
const pathological = fc.oneof(
  fc.tuple(unit, fc.integer({ min: 1, max: 30_000 })).map(([u, n]) => u.repeat(n)),
  fc
    .tuple(fc.array(unit, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 5_000 }))
    .map(([us, n]) => us.join('').repeat(n)),
  fc.array(unit, { maxLength: 20_000 }).map((us) => us.join('')),
  fc.array(fc.constantFrom(...'0123456789'), { maxLength: 20_000 }).map((ds) => ds.join('')),
  fc.array(fc.constantFrom(...'!@#$%^&*()[]{};:,.<>?-_=+'), { maxLength: 20_000 }).map((ps) => ps.join('')),
);

// A counter over the real encoder, recording the longest input and the characters it was given.
function recording() {
  const work = { longest: 0, chars: 0 };
  const count = createO200kCounter((piece) => {
    work.longest = Math.max(work.longest, piece.length);
    work.chars += piece.length;
    return countTokens(piece);
  });
  return { work, count };
}

describe('createO200kCounter', () => {
  it('gives the encoder pieces of at most PIECE_MAX_CHARS, no more characters than the text has', () => {
    // The encoder's merge is the one step worse than linear (quadratic in its input): bounded
    // inputs that together are no longer than the text make counting linear in the text.
    fc.assert(
      fc.property(pathological, (text) => {
        const { work, count } = recording();
        count(text);
        expect(work.longest).toBeLessThanOrEqual(PIECE_MAX_CHARS);
        expect(work.chars).toBeLessThanOrEqual(text.length);
      }),
      { numRuns: 150, seed: 23 },
    );
  });

  it('counts exactly as the whole-text encoder does, given pathological texts without long pieces', () => {
    fc.assert(
      fc.property(
        pathological.map((t) => t.slice(0, PIECE_MAX_CHARS)),
        (text) => {
          expect(createO200kCounter(countTokens)(text)).toBe(countTokens(text));
        },
      ),
      { numRuns: 300, seed: 23 },
    );
  });

  it('counts a corpus of ordinary texts exactly as the whole-text encoder does', () => {
    const corpus = [
      generateText(createVocabulary(1), createRng(1), 4000),
      generateText(createVocabulary(2, 512), createRng(2), 4000),
      'Donaudampfschifffahrtsgesellschaftskapitänswitwe und Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz.',
      '中华人民共和国成立于一九四九年十月一日首都北京是全国的政治中心和文化中心也是世界著名的古都之一拥有悠久的历史和灿烂的文化',
      'ภาษาไทยเป็นภาษาที่ไม่มีการเว้นวรรคระหว่างคำซึ่งทำให้ประโยคยาวมากต่อเนื่องกันไปจนกว่าจะจบความคิดหนึ่งๆแล้วจึงเว้นวรรค',
      '日本語の文章は通常単語の間に空白を入れずに書かれるため、一つの文が長く続くことがあります。',
      'https://example.com/path/to/resource?query=value&other=1#frag eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0',
      'function f(x: number): number {\n  return x * 2; // doubles\n}\n\n\tconst y = [1, 2, 3].map(f);',
      'Привет, как дела? Всё хорошо, спасибо! Ça va très bien, merci. ¿Qué tal? Γειά σου κόσμε. مرحبا بالعالم',
      "It's 2026-12-02: 1234567 tokens/s?! Don't   panic…\r\n\r\n  — naïve café 🚀🚀👍🏽",
    ];
    const count = createO200kCounter(countTokens);
    for (const text of corpus) expect(count(text), text.slice(0, 40)).toBe(countTokens(text));
  });

  it('counts one word of each pathological kind in time linear in its length: 16 times the characters, under 40 times the CPU', () => {
    // CPU time, measured side by side: a busy machine slows both lengths alike. Linear counting
    // takes about 16 times as long for 16 times the characters (up to 17 measured, for the mixed
    // word; less where long pieces are sampled); encoding whole pieces, as before pieces were
    // cut, took 120 times as long (40 000 characters of one word: 4 s, 120 000: 21 s, a megabyte:
    // minutes). Each length is counted repeatedly, with a cold encoder cache each time, until
    // 10 ms of CPU have passed: the least of 3 such rounds, taken in turns with the other length.
    const N = 1 << 11;
    const makers = ['a', 'Ж', '中', '🚀', '9', '!', ' ', '\u0301', 'aЖ中🚀9!\u0301'].map(
      (u) => (n: number) => u.repeat(Math.ceil(n / u.length)),
    );
    makers.push((n) =>
      Array.from({ length: n }, (_, i) => 'qwertyuiopasdfghjklzxcvbnm'[(i * i + 7 * i) % 26]).join(''),
    );
    const cpuMsPerCount = (count: (text: string) => number, word: string) => {
      const started = process.cpuUsage();
      let counts = 0;
      let spentMs: number;
      do {
        clearMergeCache();
        expect(count(word)).toBeGreaterThan(0);
        counts++;
        const spent = process.cpuUsage(started);
        spentMs = (spent.user + spent.system) / 1000;
      } while (spentMs < 10);
      return spentMs / counts;
    };
    for (const make of makers) {
      const words = [make(N), make(16 * N)];
      const counters = words.map(() => createO200kCounter(countTokens));
      const least = [Infinity, Infinity];
      for (let round = 0; round < 3; round++)
        for (const k of [0, 1]) least[k] = Math.min(least[k]!, cpuMsPerCount(counters[k]!, words[k]!));
      expect(least[1]! / least[0]!, JSON.stringify(words[0]!.slice(0, 8))).toBeLessThan(40);
    }
  });
});
