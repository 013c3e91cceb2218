import { topLevelMembers } from './top-level-members.js';

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * A JSON object's text with some top-level members changed, the rest left byte for byte as it
 * was: each edit is the new value's JSON text, or `null` to remove the member; a member the text
 * lacks is added at the end. `undefined` when the text is not one object with unique top-level
 * keys, or more than one member would be removed (the caller serialises the parsed value instead).
 */
export function spliceMembers(text: string, edits: Readonly<Record<string, string | null>>): string | undefined {
  const members = topLevelMembers(text);
  if (!members) return undefined;
  const changes: Array<{ from: number; to: number; with: string }> = [];
  let added = '';
  let removed = 0;
  for (const key in edits) {
    const value = edits[key]!;
    const m = members.get(key);
    if (!m) {
      if (value !== null) added += `,${JSON.stringify(key)}:${value}`;
    } else if (value !== null) changes.push({ from: m.valueStart, to: m.valueEnd, with: value });
    else {
      // Removed with the comma after it, or with the one before it when it is the last member
      // (two removals could take the same comma: left to the caller's serialiser).
      if (++removed > 1) return undefined;
      let i = m.valueEnd;
      while (isSpace(text.charCodeAt(i))) i++;
      if (text.charCodeAt(i) === 0x2c) changes.push({ from: m.keyStart, to: i + 1, with: '' });
      else {
        let j = m.keyStart - 1;
        while (isSpace(text.charCodeAt(j))) j--;
        const from = text.charCodeAt(j) === 0x2c ? j : m.keyStart;
        changes.push({ from, to: m.valueEnd, with: '' });
      }
    }
  }
  let out = text;
  if (added) {
    // Before the closing brace: every change lies before it.
    const close = out.lastIndexOf('}');
    out = `${out.slice(0, close)}${members.size - removed > 0 ? added : added.slice(1)}${out.slice(close)}`;
  }
  // From the end backwards, so the indexes of the earlier ones stay valid.
  changes.sort((a, b) => b.from - a.from);
  for (const c of changes) out = out.slice(0, c.from) + c.with + out.slice(c.to);
  return out;
}
