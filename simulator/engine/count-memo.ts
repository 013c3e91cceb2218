const SLOTS = 1 << 16;

/** FNV-1a of the characters of text[start, end): the hash {@link CountMemo} files a slice under. */
export function hashChars(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

/**
 * Counts memoised by text, looked up by a slice of a longer text read in place (no substring, no
 * string hash), for slices that recur. A slice is remembered only when offered a second time: a
 * direct-mapped filter of hashes remembers the first, so that text seen once (a correlation
 * marker, new in every request) neither fills the table, lengthening every probe of what recurs
 * around it, nor empties it when full.
 */
export class CountMemo {
  private keys = new Array<string | undefined>(SLOTS);
  private readonly counts = new Int32Array(SLOTS);
  private readonly seenOnce = new Int32Array(SLOTS);
  private used = 0;

  /** The count remembered for text[start, end) (`h` its {@link hashChars}), or -1. */
  get(text: string, start: number, end: number, h: number): number {
    const keys = this.keys;
    const length = end - start;
    let slot = h & (SLOTS - 1);
    for (let k = keys[slot]; k !== undefined; k = keys[slot]) {
      if (k.length === length && text.startsWith(k, start)) return this.counts[slot]!;
      slot = (slot + 1) & (SLOTS - 1);
    }
    return -1;
  }

  /** Whether a slice not in the table (`h` its hash) is offered a second time, and so worth a {@link set}. */
  admits(h: number): boolean {
    const at = (h >>> 16) ^ (h & (SLOTS - 1));
    if (this.seenOnce[at] === h) return true;
    this.seenOnce[at] = h;
    return false;
  }

  /** Remembers the count of `key` (not in the table; `h` its hash). */
  set(key: string, h: number, count: number): void {
    if (this.used >= (SLOTS * 3) / 4) {
      // Full enough to probe long: start afresh.
      this.keys = new Array<string | undefined>(SLOTS);
      this.used = 0;
    }
    const keys = this.keys;
    let slot = h & (SLOTS - 1);
    while (keys[slot] !== undefined) slot = (slot + 1) & (SLOTS - 1);
    keys[slot] = key;
    this.counts[slot] = count;
    this.used++;
  }
}
