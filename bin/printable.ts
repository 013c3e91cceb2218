// C0 controls but tab and newline, DEL, C1 controls (U+009B is a one-character CSI), line and
// paragraph separators, and the bidirectional overrides that reorder what a reader sees.
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Makes text from files and servers safe for a terminal: control characters are shown as `\uXXXX`
 * escapes, so a scenario name or a router's output cannot move the cursor, clear the screen or
 * rewrite what was printed before.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
