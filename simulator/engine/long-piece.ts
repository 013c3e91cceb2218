/**
 * Pieces of the o200k_base pre-tokenizer longer than this are counted chunk by chunk.
 * gpt-tokenizer's byte-pair merge rescans the whole piece for its best pair at every merge: quadratic in a piece's length, so a prompt of one long
 * word (40 000 characters: seconds; a megabyte: minutes) froze the simulator, its health
 * endpoint included. Ordinary text has no such pieces: a word, a number of at most three digits,
 * a run of punctuation or of spaces, a CJK or Thai clause up to its punctuation, well under 256
 * characters; its count stays exact.
 */
export const PIECE_MAX_CHARS = 256;

/**
 * Chunks of a long piece counted at most: past that (4 096 characters), the count of
 * {@link SAMPLED_CHUNKS} chunks spread evenly over the piece is scaled to its length, so that a
 * piece costs at most that many chunks whatever its length.
 */
export const SAMPLED_CHUNKS = 16;

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;

// Where a chunk from `from` ends: PIECE_MAX_CHARS later, one earlier where that would split a
// surrogate pair (its two halves would each count as a replacement character).
function chunkEnd(text: string, from: number, end: number): number {
  const at = from + PIECE_MAX_CHARS;
  if (at >= end) return end;
  return isLowSurrogate(text.charCodeAt(at)) && isHighSurrogate(text.charCodeAt(at - 1)) ? at - 1 : at;
}

/**
 * Tokens of text[start, end), a pre-tokenizer piece longer than {@link PIECE_MAX_CHARS}, by
 * `count` (the byte-pair encoder) over chunks of at most that many characters, at most
 * {@link SAMPLED_CHUNKS} of them: linear in the piece's length, where encoding it whole is
 * quadratic. An approximation (docs/decisions/token-counting.md): cutting a piece adds a token or
 * so at each cut (+0.2 % on a random lowercase word), and sampling assumes the unsampled chunks
 * tokenize like the sampled ones.
 */
export function countLongPiece(text: string, start: number, end: number, count: (chunk: string) => number): number {
  const chunks = Math.ceil((end - start) / PIECE_MAX_CHARS);
  if (chunks <= SAMPLED_CHUNKS) {
    let n = 0;
    for (let from = start; from < end;) {
      const to = chunkEnd(text, from, end);
      n += count(text.slice(from, to));
      from = to;
    }
    return n;
  }
  let tokens = 0;
  let chars = 0;
  for (let k = 0; k < SAMPLED_CHUNKS; k++) {
    // Chunks spread evenly, the first and the last among them; at most one character of a
    // surrogate pair's apart from where a cut in sequence would fall.
    let from = start + Math.floor((k * (chunks - 1)) / (SAMPLED_CHUNKS - 1)) * PIECE_MAX_CHARS;
    if (isLowSurrogate(text.charCodeAt(from)) && isHighSurrogate(text.charCodeAt(from - 1))) from--;
    const to = chunkEnd(text, from, end);
    tokens += count(text.slice(from, to));
    chars += to - from;
  }
  return Math.max(1, Math.round((tokens * (end - start)) / chars));
}
