import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';

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
// Segments are memoised in a table read in place, by a hash of their characters, so that a
// segment seen before costs no substring, no string hash and no pattern.
const SPLIT = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'gu');
const WHITESPACE = /\s/;
const PIECES_MAX = 200_000;
const pieces = new Map<string, number>();
const SLOTS = 1 << 16;
const SEGMENT_MAX_CHARS = 64;
let segments: Array<string | undefined> = new Array<string | undefined>(SLOTS);
const segmentCounts = new Int32Array(SLOTS);
let segmentsUsed = 0;

function isWhitespace(code: number): boolean {
  if (code === 0x20 || (code >= 0x09 && code <= 0x0d)) return true;
  return code >= 0x80 && WHITESPACE.test(String.fromCharCode(code));
}

// The pieces of a segment through the split pattern, each piece's count memoised.
function countPieces(segment: string): number {
  let n = 0;
  for (const m of segment.matchAll(SPLIT)) {
    const piece = m[0];
    let c = pieces.get(piece);
    if (c === undefined) {
      c = countO200k(piece);
      if (pieces.size >= PIECES_MAX) pieces.clear();
      if (piece.length <= SEGMENT_MAX_CHARS) pieces.set(piece, c);
    }
    n += c;
  }
  return n;
}

// The count of text[start, end), a segment, from the table or counted and remembered.
function countSegment(text: string, start: number, end: number): number {
  const length = end - start;
  if (length > SEGMENT_MAX_CHARS) return countPieces(text.slice(start, end));
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  let slot = h & (SLOTS - 1);
  for (let k = segments[slot]; k !== undefined; k = segments[slot]) {
    if (k.length === length && text.startsWith(k, start)) return segmentCounts[slot]!;
    slot = (slot + 1) & (SLOTS - 1);
  }
  const segment = text.slice(start, end);
  const n = countPieces(segment);
  if (segmentsUsed >= (SLOTS * 3) / 4) {
    // Full enough to probe long: start afresh (correlation markers, unique per request, fill it).
    segments = new Array<string | undefined>(SLOTS);
    segmentsUsed = 0;
    slot = h & (SLOTS - 1);
  }
  segments[slot] = segment;
  segmentCounts[slot] = n;
  segmentsUsed++;
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
