/** FNV-1a of the characters of text[start, end): the hash {@link CountMemo} files a slice under. */
export function hashChars(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

// A slot is four numbers side by side: hash, count, where its characters start in the pool, and
// their length (0: empty).
const HASH = 0;
const COUNT = 1;
const START = 2;
const LENGTH = 3;
// Characters of keys at most (keys are short: tokens.ts memoises slices of 64 characters at most).
const POOL_MAX = 1 << 20;

/**
 * Counts memoised by text, looked up by a slice of a longer text read in place (no substring, no
 * string hash), for slices that recur. Laid out for the cache: a slot's hash, count and key sit
 * side by side in one typed array, the keys' characters in one pool, so that a lookup reads a
 * line or two rather than a slot, a string somewhere in the heap and a count elsewhere (a run
 * holds hundreds of megabytes of evidence around them). A slice is remembered only when offered
 * a second time: a direct-mapped filter of hashes remembers the first, so that text seen once (a
 * correlation marker, new in every request) neither fills the table nor empties it when full.
 */
export class CountMemo {
  private readonly mask: number;
  private readonly slots: Int32Array;
  private readonly seenOnce: Int32Array;
  private pool = new Uint16Array(1 << 14);
  private poolUsed = 0;
  private used = 0;

  /** A table of 2^`bits` slots, at most three quarters used. */
  constructor(bits = 15) {
    this.mask = (1 << bits) - 1;
    this.slots = new Int32Array(4 << bits);
    this.seenOnce = new Int32Array(1 << bits);
  }

  /** The count remembered for text[start, end) (`h` its {@link hashChars}), or -1. */
  get(text: string, start: number, end: number, h: number): number {
    const slots = this.slots;
    const length = end - start;
    for (let slot = h & this.mask; ; slot = (slot + 1) & this.mask) {
      const at = slot << 2;
      const l = slots[at + LENGTH]!;
      if (l === 0) return -1;
      if (slots[at + HASH] === h && l === length && this.holds(slots[at + START]!, text, start, length))
        return slots[at + COUNT]!;
    }
  }

  /** Whether a slice not in the table (`h` its hash) is offered a second time, and so worth a {@link set}. */
  admits(h: number): boolean {
    const at = ((h >>> 16) ^ h) & this.mask;
    if (this.seenOnce[at] === h) return true;
    this.seenOnce[at] = h;
    return false;
  }

  /** Remembers the count of text[start, end) (not empty, not in the table; `h` its hash). */
  set(text: string, start: number, end: number, h: number, count: number): void {
    const length = end - start;
    if (this.poolUsed + length > this.pool.length && this.pool.length < POOL_MAX) {
      const grown = new Uint16Array(this.pool.length * 2);
      grown.set(this.pool);
      this.pool = grown;
    }
    if (this.used >= ((this.mask + 1) * 3) / 4 || this.poolUsed + length > this.pool.length) {
      // Full enough to probe long, or out of room for characters: start afresh.
      this.slots.fill(0);
      this.used = 0;
      this.poolUsed = 0;
    }
    const pool = this.pool;
    const from = this.poolUsed;
    for (let i = 0; i < length; i++) pool[from + i] = text.charCodeAt(start + i);
    this.poolUsed += length;
    const slots = this.slots;
    let slot = h & this.mask;
    while (slots[(slot << 2) + LENGTH] !== 0) slot = (slot + 1) & this.mask;
    const at = slot << 2;
    slots[at + HASH] = h;
    slots[at + COUNT] = count;
    slots[at + START] = from;
    slots[at + LENGTH] = length;
    this.used++;
  }

  // Whether the pool holds text[start, start + length) from `from`.
  private holds(from: number, text: string, start: number, length: number): boolean {
    const pool = this.pool;
    for (let i = 0; i < length; i++) if (pool[from + i] !== text.charCodeAt(start + i)) return false;
    return true;
  }
}
