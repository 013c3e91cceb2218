import { describe, expect, it } from 'vitest';
import { formatSeedRange, parseSeedRange } from './seed-range.js';

describe('parseSeedRange', () => {
  it.each([
    ['1..5', [1, 2, 3, 4, 5]],
    ['7', [7]],
    ['1,5,9', [1, 5, 9]],
    ['1..3,9', [1, 2, 3, 9]],
    [' 2 .. 3 , 3 ', [2, 3]],
    ['0..0', [0]],
    ['4294967295', [4294967295]],
  ])('reads %j as its seeds', (text, seeds) => {
    expect(parseSeedRange(text)).toEqual({ ok: true, seeds });
  });

  it.each([
    ['', 'expected seeds such as 1..100 or 1,5,9, got ""'],
    ['1,,2', 'expected seeds such as 1..100 or 1,5,9, got "1,,2"'],
    ['a..3', '"a" is not a seed (an integer from 0 to 4294967295)'],
    ['-1', '"-1" is not a seed (an integer from 0 to 4294967295)'],
    ['1.5', '"1.5" is not a seed (an integer from 0 to 4294967295)'],
    ['1..', '"" is not a seed (an integer from 0 to 4294967295)'],
    ['9..3', '9..3 runs backwards; write 3..9'],
    ['4294967296', '4294967296 is past the largest seed, 4294967295'],
    ['1..200000', '1..200000 names more than 100000 seeds'],
  ])('refuses %j: %s', (text, message) => {
    expect(parseSeedRange(text)).toEqual({ ok: false, message });
  });
});

describe('formatSeedRange', () => {
  it.each([
    [[1, 2, 3, 4], '1..4'],
    [[1, 2, 3, 9], '1..3,9'],
    [[5, 6], '5,6'],
    [[9, 1, 2, 3], '9,1..3'],
    [[], ''],
  ])('writes %j as %j, which parses back to the same seeds', (seeds, text) => {
    expect(formatSeedRange(seeds)).toBe(text);
    if (seeds.length) expect(parseSeedRange(text)).toEqual({ ok: true, seeds });
  });
});
