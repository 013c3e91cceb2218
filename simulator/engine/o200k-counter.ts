import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { CountMemo, hashChars } from './count-memo.js';
import { countLongPiece, PIECE_MAX_CHARS } from './long-piece.js';
import { isAscii, o200kAsciiPieceEnd } from './o200k-ascii-split.js';

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
// A piece longer than PIECE_MAX_CHARS (long-piece.ts) never reaches the encoder whole: the
// encoder's merge is quadratic in a piece's length, everything else here is linear in the text's.
const SPLIT = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'gu');
const WHITESPACE = /\s/;
const MEMO_MAX_CHARS = 64;

function isWhitespace(code: number): boolean {
  if (code === 0x20 || (code >= 0x09 && code <= 0x0d)) return true;
  return code >= 0x80 && WHITESPACE.test(String.fromCharCode(code));
}

/**
 * A counter of o200k_base tokens in a text, piece by piece with memos, `encode` counting a piece
 * (gpt-tokenizer's `countTokens`; never given more than {@link PIECE_MAX_CHARS} characters).
 */
export function createO200kCounter(encode: (piece: string) => number): (text: string) => number {
  const segments = new CountMemo();
  const pieces = new CountMemo(14);

  // The count of text[start, end), one piece, memoised.
  function countPiece(text: string, start: number, end: number): number {
    if (end - start > PIECE_MAX_CHARS) return countLongPiece(text, start, end, encode);
    if (end - start > MEMO_MAX_CHARS) return encode(text.slice(start, end));
    const h = hashChars(text, start, end);
    const known = pieces.get(text, start, end, h);
    if (known >= 0) return known;
    const piece = text.slice(start, end);
    const n = encode(piece);
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

  return (text) => {
    let n = 0;
    let start = 0;
    const last = text.length - 1;
    for (let i = text.indexOf(' ', 1); i > 0 && i < last; i = text.indexOf(' ', i + 1)) {
      if (isWhitespace(text.charCodeAt(i - 1)) || isWhitespace(text.charCodeAt(i + 1))) continue;
      n += countSegment(text, start, i);
      start = i;
    }
    return start < text.length ? n + countSegment(text, start, text.length) : n;
  };
}
