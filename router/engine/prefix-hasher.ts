const P1 = 0x9e3779b1 | 0;
const P2 = 0x85ebca77 | 0;

/** One xxHash32 round: mixes the 32-bit word `k` into the lane `acc`. */
function round(acc: number, k: number): number {
  acc = (acc + Math.imul(k, P2)) | 0;
  acc = (acc << 13) | (acc >>> 19);
  return Math.imul(acc, P1);
}

/** Murmur3's finaliser: every input bit reaches every output bit. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Code units a string is encoded in at a time (UTF-8 takes at most three bytes each). */
const CHUNK = 16384;
const bytes = new Uint8Array(CHUNK * 3 + 16);
const words = new Int32Array(bytes.buffer);
const encoder = new TextEncoder();

/**
 * An incremental 128-bit hash of a sequence of strings, whose running value can be read at any
 * point for next to nothing: cache affinity reads it at each message boundary of a prompt, where
 * a native hash costs a copy and a digest each (more than half of SHA-256's time on a 64 KiB
 * conversation). Each string is encoded to UTF-8 into a scratch buffer (a memory copy for ASCII;
 * reading a string a code unit at a time in JavaScript is ten times slower) and its 32-bit words
 * go through four xxHash32 lanes side by side; each string is followed by its length, so the
 * sequence is unambiguous (`["ab", "c"]` and `["a", "bc"]` differ).
 *
 * Not cryptographic, and lone surrogates encode as U+FFFD: a collision (accidental or crafted)
 * makes a prompt look warm where it is not, which costs what a vendor's eviction costs, a cache
 * miss (docs/decisions/cache-affinity.md). Values are per process (the byte order is the machine's).
 */
export class PrefixHasher {
  private a = 0x243f6a88 | 0;
  private b = 0x85a308d3 | 0;
  private c = 0x13198a2e | 0;
  private d = 0x03707344 | 0;

  /** Feeds `s` (then its length). */
  update(s: string): this {
    const n = s.length;
    for (let from = 0; from < n;) {
      let to = Math.min(n, from + CHUNK);
      // Never split a surrogate pair between chunks.
      if (to < n && (s.charCodeAt(to - 1) & 0xfc00) === 0xd800) to--;
      this.words(encoder.encodeInto(from === 0 && to === n ? s : s.slice(from, to), bytes).written);
      from = to;
    }
    this.a = round(this.a, n);
    this.b = round(this.b, n ^ 0x5bd1e995);
    this.c = round(this.c, n ^ 0x27d4eb2f);
    this.d = round(this.d, n ^ 0x165667b1);
    return this;
  }

  /** The hash of everything fed so far, as eight UTF-16 code units (a map key, not text); feeding may go on. */
  key(): string {
    // Murmur3 x86-128's finish: every lane reaches every word.
    let a = this.a;
    let b = this.b;
    let c = this.c;
    let d = this.d;
    a = (a + b + c + d) | 0;
    b = (b + a) | 0;
    c = (c + a) | 0;
    d = (d + a) | 0;
    a = fmix(a);
    b = fmix(b);
    c = fmix(c);
    d = fmix(d);
    a = (a + b + c + d) | 0;
    b = (b + a) | 0;
    c = (c + a) | 0;
    d = (d + a) | 0;
    return String.fromCharCode(a & 0xffff, a >>> 16, b & 0xffff, b >>> 16, c & 0xffff, c >>> 16, d & 0xffff, d >>> 16);
  }

  /** Mixes the first `length` bytes of the scratch buffer, zero-padded to whole rounds of four words. */
  private words(length: number): void {
    bytes.fill(0, length, (length + 15) & ~15);
    let a = this.a;
    let b = this.b;
    let c = this.c;
    let d = this.d;
    const end = ((length + 15) & ~15) >>> 2;
    for (let i = 0; i + 4 <= end; i += 4) {
      a = round(a, words[i]!);
      b = round(b, words[i + 1]!);
      c = round(c, words[i + 2]!);
      d = round(d, words[i + 3]!);
    }
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
  }
}
