import { describe, expect, it } from 'vitest';
import { covers, intersect, union } from './intervals.js';

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
});
