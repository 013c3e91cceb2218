import { describe, expect, it } from 'vitest';
import { perWindow } from './window-phrase.js';

describe('perWindow', () => {
  it('names the window a limit message means', () => {
    expect([60_000, 3_600_000, 86_400_000, 10_000, 120_000, 1_500, 0].map(perWindow)).toEqual([
      'per minute',
      'per hour',
      'per day',
      'per 10 seconds',
      'per 2 minutes',
      'per 1500 milliseconds',
      'at once',
    ]);
  });
});
