/**
 * A 53-bit digest of answer text (cyrb53 over UTF-16 code units), fed piece by piece: the
 * simulator digests the text it generated, a client the content it read frame by frame, and the
 * two are equal exactly when the text is. Not cryptographic: it tells texts apart, it hides nothing.
 */
export class ContentDigest {
  private h1 = 0xdeadbeef;
  private h2 = 0x41c6ce57;
  /** Code units fed so far. */
  length = 0;

  update(text: string): this {
    let { h1, h2 } = this;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    this.h1 = h1;
    this.h2 = h2;
    this.length += text.length;
    return this;
  }

  /** The digest as a number below 2^53 (a ledger column stores it as a float). */
  value(): number {
    let h1 = Math.imul(this.h1 ^ (this.h1 >>> 16), 2246822507);
    h1 ^= Math.imul(this.h2 ^ (this.h2 >>> 13), 3266489909);
    let h2 = Math.imul(this.h2 ^ (this.h2 >>> 16), 2246822507);
    h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return 4294967296 * (2097151 & h2) + (h1 >>> 0);
  }
}

/** The digest of a whole text, as `formatDigest` prints it. */
export function contentDigest(text: string): string {
  return formatDigest(new ContentDigest().update(text).value());
}

const HEX = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));

/**
 * A digest as 14 hex digits: `value.toString(16).padStart(14, '0')` for a digest (an integer
 * below 2^53), written nibble by nibble, as `toString(16)` of a double costs some 40 times more
 * (judging and the evidence files format a day's million digests several times).
 */
export function formatDigest(value: number): string {
  if (!(Number.isInteger(value) && value >= 0 && value < 2 ** 56)) return value.toString(16).padStart(14, '0');
  const hi = Math.floor(value / 4294967296);
  const lo = value >>> 0;
  const h = HEX;
  return String.fromCharCode(
    h[(hi >>> 20) & 15]!,
    h[(hi >>> 16) & 15]!,
    h[(hi >>> 12) & 15]!,
    h[(hi >>> 8) & 15]!,
    h[(hi >>> 4) & 15]!,
    h[hi & 15]!,
    h[lo >>> 28]!,
    h[(lo >>> 24) & 15]!,
    h[(lo >>> 20) & 15]!,
    h[(lo >>> 16) & 15]!,
    h[(lo >>> 12) & 15]!,
    h[(lo >>> 8) & 15]!,
    h[(lo >>> 4) & 15]!,
    h[lo & 15]!,
  );
}
