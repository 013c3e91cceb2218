import { describe, expect, it } from 'vitest';
import { degradedSpans } from './degraded-spans.js';

const row = (arrivalAt: number, degraded?: true) => ({ arrivalAt, ...(degraded ? { degraded } : {}) });

describe('degradedSpans', () => {
  it.each([
    ['no marks', [row(1), row(2)], []],
    ['one run of marks', [row(1), row(2, true), row(3, true), row(4)], [{ from: 2, to: 3, attempts: 2 }]],
    [
      'two runs split by an attempt Redis decided',
      [row(1, true), row(2), row(3, true), row(5, true), row(6, true)],
      [
        { from: 1, to: 1, attempts: 1 },
        { from: 3, to: 6, attempts: 3 },
      ],
    ],
    ['marks to the end', [row(1), row(2, true)], [{ from: 2, to: 2, attempts: 1 }]],
  ])('finds the spans of degraded attempts given %s', (_, rows, spans) => {
    expect(degradedSpans(rows)).toEqual(spans);
  });
});
