/** Where one member of a JSON object's top level sits in its text. */
export interface MemberSpan {
  /** Index of the key's opening quote. */
  keyStart: number;
  /** Index of the value's first character. */
  valueStart: number;
  /** Index just past the value's last character. */
  valueEnd: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

// Index just past the string whose opening quote is at `at`; -1 when it never closes.
function stringEnd(text: string, at: number): number {
  let j = text.indexOf('"', at + 1);
  while (j !== -1) {
    let k = j - 1;
    while (text.charCodeAt(k) === BACKSLASH) k--;
    if ((j - 1 - k) % 2 === 0) return j + 1;
    j = text.indexOf('"', j + 1);
  }
  return -1;
}

// Index just past the value starting at `at`; -1 when the text ends first or is out of shape.
function valueEnd(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === QUOTE) return stringEnd(text, at);
  if (c === 0x7b || c === 0x5b) {
    // An object or array: brackets counted outside strings, strings skipped whole.
    let depth = 0;
    for (let i = at; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === QUOTE) {
        const end = stringEnd(text, i);
        if (end === -1) return -1;
        i = end - 1;
      } else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        if (--depth === 0) return i + 1;
      }
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter.
  let i = at;
  while (i < text.length) {
    const d = text.charCodeAt(i);
    if (d === 0x2c || d === 0x7d || d === 0x5d || isSpace(d)) break;
    i++;
  }
  return i > at ? i : -1;
}

/**
 * The members of a JSON object's top level, by key, found without parsing the values: strings are
 * skipped with `indexOf`, nested values by counting brackets. For texts already known to be a JSON
 * object (parsed once already) or untrusted ones alike: anything out of shape, and any key given
 * twice (where parsers disagree on which one counts), gives `undefined`. Keys with escapes are
 * decoded.
 */
export function topLevelMembers(text: string): Map<string, MemberSpan> | undefined {
  let i = 0;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== 0x7b) return undefined;
  i++;
  const members = new Map<string, MemberSpan>();
  for (;;) {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) === 0x7d && members.size === 0) return text.slice(i + 1).trim() === '' ? members : undefined;
    if (text.charCodeAt(i) !== QUOTE) return undefined;
    const keyStart = i;
    const keyEnd = stringEnd(text, i);
    if (keyEnd === -1) return undefined;
    let key = text.slice(keyStart + 1, keyEnd - 1);
    if (key.includes('\\')) {
      try {
        key = JSON.parse(text.slice(keyStart, keyEnd)) as string;
      } catch {
        return undefined;
      }
    }
    if (members.has(key)) return undefined;
    i = keyEnd;
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) !== 0x3a) return undefined;
    i++;
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    const end = valueEnd(text, i);
    if (end === -1) return undefined;
    members.set(key, { keyStart, valueStart: i, valueEnd: end });
    i = end;
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    const c = text.charCodeAt(i);
    if (c === 0x7d) return text.slice(i + 1).trim() === '' ? members : undefined;
    if (c !== 0x2c) return undefined;
    i++;
  }
}
