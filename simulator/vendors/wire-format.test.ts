import { describe, expect, it } from 'vitest';
import { formatGoDuration, formatHttpDate, formatRfc3339, stableHex, stableUuid, uuidFrom } from './wire-format.js';

describe('formatGoDuration', () => {
  // Values from OpenAI's and Groq's documentation and captured responses.
  it.each([
    [360_000, '6m0s'],
    [1000, '1s'],
    [12, '12ms'],
    [9, '9ms'],
    [179_560, '2m59.56s'],
    [7660, '7.66s'],
    [3_600_000, '1h0m0s'],
    [0, '0s'],
    [-5, '0s'],
  ])('writes %d ms as %s', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });

  it('never shortens a wait when rounding', () => {
    expect(formatGoDuration(0.2)).toBe('1ms');
    expect(formatGoDuration(7661)).toBe('7.67s');
    expect(formatGoDuration(999.5)).toBe('1s');
  });

  it('writes message waits to the millisecond', () => {
    expect(formatGoDuration(5289, 3)).toBe('5.289s');
    expect(formatGoDuration(2_954_016, 3)).toBe('49m14.016s');
  });
});

describe('formatHttpDate', () => {
  it('writes an IMF-fixdate, rounded up to the second', () => {
    expect(formatHttpDate(Date.UTC(1994, 10, 6, 8, 49, 36, 200))).toBe('Sun, 06 Nov 1994 08:49:37 GMT');
  });
});

describe('formatRfc3339', () => {
  it('writes second precision as Anthropic does', () => {
    expect(formatRfc3339(Date.UTC(2025, 7, 21, 12, 40, 58, 1))).toBe('2025-08-21T12:40:59Z');
  });
  it('writes each instant right, whatever instants came before (seconds remembered)', () => {
    const start = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 5000; i++) {
      // Back and forth over a minute, and now and then a day away: slots reused and replaced.
      const at = start + ((i * 7919) % 60_000) + (i % 97 === 0 ? 86_400_000 : 0) - 1;
      const expected = new Date(Math.ceil(at / 1000) * 1000).toISOString().replace('.000Z', 'Z');
      expect(formatRfc3339(at)).toBe(expected);
    }
  });
});

describe('stableHex', () => {
  it('derives the same characters for the same text, asked again or at another length', () => {
    const a = stableHex('org-main', 32);
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(stableHex('org-main', 32)).toBe(a);
    expect(stableHex('org-main', 10)).toBe(a.slice(0, 10));
    expect(stableHex('org-other', 32)).not.toBe(a);
    expect(stableUuid('org-main')).toBe(uuidFrom(a));
  });
});
