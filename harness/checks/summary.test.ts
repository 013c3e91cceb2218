import { describe, expect, it } from 'vitest';
import { percentile, summary } from './types.js';

/** The summary as it was first written: a copy sorted by `a - b`. */
function byComparator(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  return {
    count: s.length,
    p50: percentile(s, 50),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    max: s.length ? s[s.length - 1]! : null,
  };
}

describe('summary', () => {
  it('gives the figures a comparator sort gives, for repeated, negative, fractional and infinite values', () => {
    let x = 7;
    const next = () => (x = (x * 48271) % 2147483647) / 2147483647;
    for (const n of [0, 1, 2, 3, 10, 99, 100, 101, 1000, 12_345]) {
      const values = Array.from({ length: n }, (_, i) =>
        i % 17 === 0 ? Math.round(next() * 10) : i % 29 === 0 ? -next() * 1e6 : next() * 30_000,
      );
      if (n > 50) values.push(Infinity, -Infinity);
      expect(summary(values), `${n} values`).toEqual(byComparator(values));
    }
  });

  it('gives the figures a comparator sort gives when a value is NaN', () => {
    const values = [5, Number.NaN, 3, 9, Number.NaN, 1, 4, 4, 8];
    expect(summary(values)).toEqual(byComparator(values));
  });

  it('leaves the values it was given as they were', () => {
    const values = [3, 1, 2];
    summary(values);
    expect(values).toEqual([3, 1, 2]);
  });
});
