import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { covers, intersect, union, unionOfColumns } from './intervals.js';

describe('intervals', () => {
  it('merges overlaps, intersects and tests coverage', () => {
    expect(
      union([
        [5, 8],
        [0, 2],
        [1, 3],
        [9, 9],
      ]),
    ).toEqual([
      [0, 3],
      [5, 8],
    ]);
    expect(
      intersect(
        [
          [0, 3],
          [5, 8],
        ],
        [[2, 6]],
      ),
    ).toEqual([
      [2, 3],
      [5, 6],
    ]);
    expect(covers([[0, 3]], 1, 3)).toBe(true);
    expect(covers([[0, 3]], 1, 4)).toBe(false);
    expect(
      covers(
        [
          [0, 3],
          [5, 8],
          [10, 12],
        ],
        5,
        8,
      ),
    ).toBe(true);
    expect(
      covers(
        [
          [0, 3],
          [5, 8],
          [10, 12],
        ],
        4,
        6,
      ),
    ).toBe(false);
    expect(
      covers(
        [
          [0, 3],
          [5, 8],
          [10, 12],
        ],
        12,
        12,
      ),
    ).toBe(false);
  });

  it('merges intervals given as columns as it merges pairs', () => {
    const pair = fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 50 }));
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 40 }), (pairs) => {
        const starts = Float64Array.from(pairs, ([a]) => a);
        const ends = Float64Array.from(pairs, ([, b]) => b);
        expect(unionOfColumns(starts, ends, pairs.length)).toEqual(union(pairs.map(([a, b]) => [a, b])));
      }),
      { seed: 12 },
    );
  });

  it('merges intervals given as columns as it merges pairs, with fractions, open ends and NaN', () => {
    const time = fc.oneof(
      fc.double({ min: 0, max: 20, noNaN: true }),
      fc.integer({ min: 0, max: 20 }),
      fc.constantFrom(Infinity, Number.NaN),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(time, time), { maxLength: 60 }), (pairs) => {
        const starts = Float64Array.from(pairs, ([a]) => a);
        const ends = Float64Array.from(pairs, ([, b]) => b);
        expect(unionOfColumns(starts, ends, pairs.length)).toEqual(union(pairs.map(([a, b]) => [a, b])));
      }),
      { seed: 13 },
    );
  });
});
