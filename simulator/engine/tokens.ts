import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { CountMemo, hashChars } from './count-memo.js';
import { isAscii, o200kAsciiPieceEnd } from './o200k-ascii-split.js';

/**
 * How a vendor meters prompt tokens, as the simulator counts them (docs/decisions/token-counting.md):
 *
 * - OpenAI and Azure OpenAI, and the open-weight hosts (Groq, Together, Cerebras, Mistral,
 *   DeepSeek, xAI, OpenRouter): the text through OpenAI's `o200k_base` tokenizer (gpt-tokenizer),
 *   plus OpenAI's chat framing, 4 tokens a message (`<|start|>`, role, `<|message|>`, `<|end|>`)
 *   and 3 priming the reply. Exact for the gpt-4o family; for the hosts' own tokenizers (Llama 3,
 *   Mistral, DeepSeek: byte-level BPE vocabularies of similar size) it is the documented
 *   approximation.
 * - Anthropic (and Bedrock, whose models here are Claude): Anthropic publishes no tokenizer for
 *   its current models; four characters a token plus 3 a message, the count the prompt cache's
 *   segments use (prompt-segments.ts). This equals a router's usual estimate: a known gap.
 * - Gemini and Vertex AI: Google documents about 4 characters a token; no framing.
 *
 * Either way the count is not what a router estimates from characters, so a router that reports
 * its own estimate instead of the vendor's usage is caught by the usage check.
 */
export type TokenRule = 'o200k' | 'anthropic' | 'gemini';

const RULES: Record<string, TokenRule> = {
  anthropic: 'anthropic',
  bedrock: 'anthropic',
  gemini: 'gemini',
  'vertex-ai': 'gemini',
};

/** The rule a vendor's prompts are counted by. */
export function tokenRuleFor(vendor: string): TokenRule {
  return RULES[vendor] ?? 'o200k';
}

// The tokenizer splits text into pieces (words with their leading space, numbers, punctuation)
// and encodes each on its own, so a prompt's count is the sum of its pieces' counts. Prompts are
// made of a vocabulary's words: memoising pieces makes counting about five times cheaper than
// encoding whole prompts (BENCHMARKS.md), and exact.
//
// Running the split pattern (Unicode classes, seven alternatives) over a whole prompt still cost
// more than the rest of counting, so the text is first cut into segments without it: before
// every space whose neighbours are both not whitespace. No piece can cross such a cut (the
// pattern takes a space only as a piece's first character, or in a run of whitespace, and the
// character before the cut is not whitespace), nor does any piece depend on what lies past one
// (its one lookahead, `\s+(?!\S)`, follows whitespace, which no segment ends with). So a text's
// count is the sum of its segments' counts, each segment counted by the pattern once and
// memoised: in a prompt, a segment is mostly one word with its leading space, a piece already.
// Segments are memoised by their characters, read in place (CountMemo), and so are pieces: a
// segment or piece seen before costs no substring, no string hash and no pattern. A segment not
// yet known (in a prompt, mostly the correlation marker, new in every request) is cut into
// pieces without the pattern where it is ASCII (o200k-ascii-split.ts), by the pattern elsewhere.
const SPLIT = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'gu');
const WHITESPACE = /\s/;
const MEMO_MAX_CHARS = 64;
const segments = new CountMemo();
const pieces = new CountMemo(14);

function isWhitespace(code: number): boolean {
  if (code === 0x20 || (code >= 0x09 && code <= 0x0d)) return true;
  return code >= 0x80 && WHITESPACE.test(String.fromCharCode(code));
}

// The count of text[start, end), one piece, memoised.
function countPiece(text: string, start: number, end: number): number {
  if (end - start > MEMO_MAX_CHARS) return countO200k(text.slice(start, end));
  const h = hashChars(text, start, end);
  const known = pieces.get(text, start, end, h);
  if (known >= 0) return known;
  const piece = text.slice(start, end);
  const n = countO200k(piece);
  if (pieces.admits(h)) pieces.set(text, start, end, h, n);
  return n;
}

// The count of text[start, end), a segment, piece by piece.
function countPieces(text: string, start: number, end: number): number {
  let n = 0;
  if (isAscii(text, start, end)) {
    for (let i = start; i < end;) {
      const j = o200kAsciiPieceEnd(text, i, end);
      n += countPiece(text, i, j);
      i = j;
    }
    return n;
  }
  for (const m of text.slice(start, end).matchAll(SPLIT)) n += countPiece(m[0], 0, m[0].length);
  return n;
}

// The count of text[start, end), a segment, memoised.
function countSegment(text: string, start: number, end: number): number {
  if (end - start > MEMO_MAX_CHARS) return countPieces(text, start, end);
  const h = hashChars(text, start, end);
  const known = segments.get(text, start, end, h);
  if (known >= 0) return known;
  const n = countPieces(text, start, end);
  if (segments.admits(h)) segments.set(text, start, end, h, n);
  return n;
}

function o200k(text: string): number {
  let n = 0;
  let start = 0;
  const last = text.length - 1;
  for (let i = text.indexOf(' ', 1); i > 0 && i < last; i = text.indexOf(' ', i + 1)) {
    if (isWhitespace(text.charCodeAt(i - 1)) || isWhitespace(text.charCodeAt(i + 1))) continue;
    n += countSegment(text, start, i);
    start = i;
  }
  return start < text.length ? n + countSegment(text, start, text.length) : n;
}

/**
 * Loads the tokenizer's ranks now (a second or more on a busy machine) rather than inside the
 * first request, which would stall it and everything queued behind it.
 */
export function warmTokenizer(): void {
  countO200k('warm up');
}

/**
 * Prompt tokens of `text` in `messageCount` messages, as `vendor` meters them; `framed: false`
 * for inputs without chat framing (embeddings).
 */
export function countPromptTokens(vendor: string, text: string, messageCount: number, framed = true): number {
  switch (tokenRuleFor(vendor)) {
    case 'anthropic':
      return Math.max(1, Math.ceil(text.length / 4) + (framed ? 3 * messageCount : 0));
    case 'gemini':
      return Math.max(1, Math.ceil(text.length / 4));
    default:
      // Embedding inputs are joined by newlines in `text` and metered one by one.
      return framed ? o200k(text) + 4 * messageCount + 3 : text.split('\n').reduce((n, t) => n + o200k(t), 0);
  }
}

/**
 * The estimate routers make without a tokenizer: about four characters a token plus three a
 * message. Not what any vendor meters; kept for tests that show the difference.
 */
export function estimateTokens(text: string, messageCount: number): number {
  return Math.ceil(text.length / 4) + 3 * messageCount;
}
