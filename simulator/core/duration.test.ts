import { describe, expect, it } from 'vitest';
import { formatDurationShort, parseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['250ms', 250],
    ['5s', 5000],
    ['1m30s', 90_000],
    ['1.5s', 1500],
    ['3d', 259_200_000],
    ['-5s', -5000],
    ['0s', 0],
    [42, 42],
    ['42', 42],
  ])('reads %s as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['5 seconds', 'soon', '', '1x', '--5s', '9'.repeat(400), `${'9'.repeat(400)}d`])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('formatDurationShort', () => {
  it('formats for people', () => {
    expect([850, 12_500, 360_000, 9_000_000].map(formatDurationShort)).toEqual(['850ms', '12.5s', '6m', '2h30m']);
  });
});
