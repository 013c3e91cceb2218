import { describe, expect, it } from 'vitest';
import { backoffMs } from './backoff.js';
import type { Rng } from './rng.js';
import { createRng } from './rng.js';

const fixed = (v: number): Rng => ({ next: () => v }) as Rng;
const options = { baseMs: 200, maxMs: 5000 };

describe('backoffMs', () => {
  it('draws from [ceiling/2, ceiling], the ceiling doubling with each attempt up to the max', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => backoffMs(n, options, fixed(0)))).toEqual([
      100, 200, 400, 800, 1600, 2500, 2500,
    ]);
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => backoffMs(n, options, fixed(1)))).toEqual([
      200, 400, 800, 1600, 3200, 5000, 5000,
    ]);
  });

  it('grows: each retry waits at least as long as the longest the one before could, until the cap', () => {
    const rng = createRng(7);
    for (let n = 0; n < 4; n++)
      for (let i = 0; i < 200; i++) expect(backoffMs(n + 1, options, rng)).toBeGreaterThanOrEqual(200 * 2 ** n);
  });
});
