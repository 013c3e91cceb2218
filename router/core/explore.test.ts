import { describe, expect, it } from 'vitest';
import { chooseExploration, type ExploreCandidate } from './explore.js';
import { createRng, type Rng } from './rng.js';

/** Draws the given values in turn, counting how many were drawn. */
function draws(...values: number[]): Rng & { used: number } {
  const r = { used: 0, next: () => values[r.used++] ?? 0 };
  return r;
}

const s = { share: 0.05, staleAfterMs: 60_000 };
const NOW = 1_000_000;
const fresh: ExploreCandidate = { measuredAt: NOW - 1000 };
const stale: ExploreCandidate = { measuredAt: NOW - 61_000 };
const never: ExploreCandidate = { measuredAt: undefined };

describe('chooseExploration', () => {
  const table: Array<{
    name: string;
    ranked: ExploreCandidate[];
    draws: number[];
    expected: number | undefined;
    used: number;
  }> = [
    {
      name: 'keeps the ranking when every target is measured and fresh, drawing nothing',
      ranked: [fresh, fresh],
      draws: [0],
      expected: undefined,
      used: 0,
    },
    {
      name: 'keeps the ranking when the best is itself unmeasured',
      ranked: [never, never],
      draws: [0],
      expected: undefined,
      used: 0,
    },
    {
      name: 'keeps the ranking when the best is stale',
      ranked: [stale, never],
      draws: [0],
      expected: undefined,
      used: 0,
    },
    {
      name: 'tries the unmeasured target when the draw falls inside the share',
      ranked: [fresh, fresh, never],
      draws: [0.04, 0.9],
      expected: 2,
      used: 2,
    },
    {
      name: 'keeps the ranking when the draw falls outside the share',
      ranked: [fresh, never],
      draws: [0.05],
      expected: undefined,
      used: 1,
    },
    {
      name: 'tries a stale target as it would an unmeasured one',
      ranked: [fresh, stale],
      draws: [0, 0],
      expected: 1,
      used: 2,
    },
    {
      name: 'picks among several unknown targets by the second draw',
      ranked: [fresh, never, fresh, stale],
      draws: [0, 0.6],
      expected: 3,
      used: 2,
    },
    { name: 'keeps the ranking with one target', ranked: [fresh], draws: [0], expected: undefined, used: 0 },
  ];
  for (const row of table)
    it(row.name, () => {
      const rng = draws(...row.draws);
      expect(chooseExploration(row.ranked, NOW, s, rng)).toBe(row.expected);
      expect(rng.used).toBe(row.used);
    });

  it('never explores with a share of 0', () => {
    expect(chooseExploration([fresh, never], NOW, { ...s, share: 0 }, draws(0, 0))).toBeUndefined();
  });

  it('explores close to the share of requests, and never more than it allows over many', () => {
    const rng = createRng(22);
    let explored = 0;
    for (let i = 0; i < 20_000; i++) if (chooseExploration([fresh, never], NOW, s, rng) !== undefined) explored++;
    expect(explored / 20_000).toBeGreaterThan(0.04);
    expect(explored / 20_000).toBeLessThan(0.06);
  });
});
