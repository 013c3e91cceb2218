// Cost of counting prompt tokens as the simulator does (o200k_base, pieces memoised) against
// encoding each whole prompt with gpt-tokenizer, on prompts the load generator makes (a
// correlation marker and words of a seeded vocabulary, 20 to 400 tokens).
//   npm run bench:tokens -- [--prompts 20000]
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { createRng, createVocabulary, formatCorrelationMarker, generateTokens } from '../../simulator/index.js';
import { countPromptTokens } from '../../simulator/engine/tokens.js';

const at = process.argv.indexOf('--prompts');
const count = at > 0 ? Number(process.argv[at + 1]) : 20_000;
const vocabulary = createVocabulary(7);
const rng = createRng(1);
const prompts = Array.from(
  { length: count },
  (_, i) => `${formatCorrelationMarker(`bench-${i}`)} ${generateTokens(vocabulary, rng, 20 + (i % 380)).join('')}`,
);
const chars = prompts.reduce((n, p) => n + p.length, 0) / prompts.length;
for (const [name, f] of [
  ['whole prompt (gpt-tokenizer countTokens)', (p: string) => countTokens(p)],
  ['simulator (pieces memoised)', (p: string) => countPromptTokens('openai', p, 1)],
] as const) {
  const runs: number[] = [];
  for (let r = 0; r < 4; r++) {
    const t0 = performance.now();
    for (const p of prompts) f(p);
    if (r > 0) runs.push(((performance.now() - t0) * 1000) / prompts.length);
  }
  runs.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(42)} ${runs[1]!.toFixed(1)} µs per prompt (median of 3; ${Math.round(chars)} chars on average)`,
  );
}
