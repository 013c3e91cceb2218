import { describe, expect, it } from 'vitest';
import { readLoss } from './shared-plan.js';

// What a worker makes of the script's "lost" answer: the time comes from Redis and is untrusted.

const NOW = 1_700_000_000_000;
const WINDOW = 60_000;

describe('readLoss', () => {
  it.each([
    ['a decision', [1, '0', '5', '5', '0', '0'], undefined],
    ['a loss just now', ['lost', String(NOW)], NOW],
    ['a loss seen by another worker earlier', ['lost', String(NOW - 5000)], NOW - 5000],
    ['a time that is not a number', ['lost', 'garbage'], NOW],
    ['no time at all', ['lost'], NOW],
    ['an infinite time', ['lost', 'inf'], NOW],
    ['a time far ahead', ['lost', '1e300'], NOW + 60_000],
    ['a time far behind', ['lost', '-1e300'], NOW - WINDOW],
  ])('reads %s', (_, reply, expected) => {
    expect(readLoss(reply, NOW, WINDOW)).toBe(expected);
  });
});
