// The o200k_base split pattern (gpt-tokenizer's O200K_TOKEN_SPLIT_REGEX), seven alternatives
// tried in order at each position:
//   1. [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+<contraction>?
//   2. [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*<contraction>?
//   3. \p{N}{1,3}
//   4.  ?[^\s\p{L}\p{N}]+[\r\n/]*
//   5. \s*[\r\n]+
//   6. \s+(?!\S)
//   7. \s+
// In ASCII the Unicode classes shrink to a few ranges (letters are A-Z and a-z alone, no marks,
// no titlecase, digits 0-9), so the pattern reduces to a few branches on a character's class,
// run here without the regular expression: a pattern with Unicode classes and backtracking, one
// match object and one substring a piece, cost more than the rest of counting a prompt that is
// not yet memoised (a correlation marker, new in every request). Text with any other character
// goes through the pattern itself (tokens.ts); o200k-ascii-split.test.ts checks the two agree.

const OTHER = 0; // Neither whitespace, letter nor digit: punctuation, symbols, control characters.
const SPACE = 1; // Whitespace other than a line end: space, \t, \v, \f.
const LINE = 2; // \r or \n.
const DIGIT = 3;
const UPPER = 4;
const LOWER = 5;

const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  CLASS[c] =
    c === 0x0a || c === 0x0d
      ? LINE
      : c === 0x20 || (c >= 0x09 && c <= 0x0c)
        ? SPACE
        : c >= 0x30 && c <= 0x39
          ? DIGIT
          : c >= 0x41 && c <= 0x5a
            ? UPPER
            : c >= 0x61 && c <= 0x7a
              ? LOWER
              : OTHER;
}

/** Whether text[start, end) is all ASCII, where {@link o200kAsciiPieceEnd} applies. */
export function isAscii(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (text.charCodeAt(i) >= 0x80) return false;
  return true;
}

/**
 * Where the o200k_base piece starting at `i` ends, in ASCII text[i, end) read as a whole string
 * (its lookahead sees `end` as the text's end): the `lastIndex` the split pattern would leave.
 */
export function o200kAsciiPieceEnd(text: string, i: number, end: number): number {
  const c = CLASS[text.charCodeAt(i)]!;
  if (c >= UPPER) return letters(text, i, end); // 1 or 2, without the optional first character.
  if (c === DIGIT) {
    const last = Math.min(end, i + 3);
    let j = i + 1;
    while (j < last && CLASS[text.charCodeAt(j)] === DIGIT) j++;
    return j; // 3
  }
  if (c !== LINE) {
    // 1 or 2 with their optional first character (anything but a line end, letter or digit).
    if (i + 1 < end && CLASS[text.charCodeAt(i + 1)]! >= UPPER) return letters(text, i + 1, end);
    if (c === OTHER) return symbols(text, i + 1, end); // 4
    if (text.charCodeAt(i) === 0x20 && i + 1 < end && CLASS[text.charCodeAt(i + 1)] === OTHER)
      return symbols(text, i + 2, end); // 4, with its leading space.
  }
  // Whitespace. 5: up to its last line end, if it has one; 6: all of it at the end, else all but
  // its last character (which the next piece takes as its first); 7: one character.
  let k = i;
  let lastLine = -1;
  for (; k < end; k++) {
    const d = CLASS[text.charCodeAt(k)];
    if (d === LINE) lastLine = k;
    else if (d !== SPACE) break;
  }
  if (lastLine >= 0) return lastLine + 1;
  return k === end || k - i < 2 ? k : k - 1;
}

// From a letter at j: uppercase letters then lowercase ones (1 and 2 from their first letter on:
// in ASCII the two classes are disjoint, so neither gives a letter back to the other), then a
// contraction.
function letters(text: string, j: number, end: number): number {
  while (j < end && CLASS[text.charCodeAt(j)] === UPPER) j++;
  while (j < end && CLASS[text.charCodeAt(j)] === LOWER) j++;
  if (j + 1 >= end || text.charCodeAt(j) !== 0x27) return j;
  // '(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])
  const a = text.charCodeAt(j + 1) | 0x20;
  if (a === 0x73 || a === 0x64 || a === 0x6d || a === 0x74) return j + 2;
  if (j + 2 >= end) return j;
  const b = text.charCodeAt(j + 2) | 0x20;
  if ((a === 0x6c && b === 0x6c) || ((a === 0x76 || a === 0x72) && b === 0x65)) return j + 3;
  return j;
}

// The rest of 4: more symbols, then line ends and slashes.
function symbols(text: string, j: number, end: number): number {
  while (j < end && CLASS[text.charCodeAt(j)] === OTHER) j++;
  for (; j < end; j++) {
    const c = text.charCodeAt(j);
    if (c !== 0x0a && c !== 0x0d && c !== 0x2f) break;
  }
  return j;
}
