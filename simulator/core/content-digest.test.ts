import { describe, expect, it } from 'vitest';
import { ContentDigest, contentDigest, formatDigest } from './content-digest.js';

describe('formatDigest', () => {
  it('writes exactly what toString(16) padded to 14 digits writes', () => {
    const values = [0, 1, 15, 16, 2 ** 32 - 1, 2 ** 32, 2 ** 52, 2 ** 53 - 1, 0xabcdef12345678 % 2 ** 53];
    let x = 0x9e3779b9;
    for (let i = 0; i < 2000; i++) {
      x = Math.imul(x ^ (x >>> 15), 2246822507) >>> 0;
      values.push((x % 2 ** 21) * 2 ** 32 + (Math.imul(x, 3266489909) >>> 0));
    }
    for (const text of ['', 'a', 'héllo wörld', 'x'.repeat(1000)])
      values.push(new ContentDigest().update(text).value());
    for (const v of values) expect(formatDigest(v), String(v)).toBe(v.toString(16).padStart(14, '0'));
  });

  it('is what contentDigest prints for a text', () => {
    expect(contentDigest('')).toBe(new ContentDigest().value().toString(16).padStart(14, '0'));
    expect(contentDigest('abc')).toMatch(/^[0-9a-f]{14}$/);
  });
});
