import { describe, expect, it } from 'vitest';
import { replicaPicker, splitConnections } from './spread.js';

describe('spreading a load over replicas', () => {
  it('sends requests to each replica in turn, round robin', () => {
    const pick = replicaPicker({ replicas: 3, spread: 'round-robin', skew: 0.8 }, 1);
    expect(Array.from({ length: 7 }, (_, n) => pick(n))).toEqual([0, 1, 2, 0, 1, 2, 0]);
  });

  it('sends the skewed share to the first replica and the rest evenly, the same for the same seed', () => {
    const pick = replicaPicker({ replicas: 3, spread: 'skewed', skew: 0.8 }, 7);
    const counts = [0, 0, 0];
    for (let n = 0; n < 10_000; n++) counts[pick(n)]!++;
    expect(counts[0]! / 10_000).toBeCloseTo(0.8, 1);
    expect(Math.abs(counts[1]! - counts[2]!)).toBeLessThan(300);
    const again = replicaPicker({ replicas: 3, spread: 'skewed', skew: 0.8 }, 7);
    expect(Array.from({ length: 50 }, (_, n) => again(n))).toEqual(Array.from({ length: 50 }, (_, n) => pick(n)));
  });

  it('splits closed-loop connections the same way, at least one each', () => {
    expect(splitConnections({ replicas: 3, spread: 'round-robin', skew: 0.8 }, 10)).toEqual([4, 3, 3]);
    expect(splitConnections({ replicas: 3, spread: 'skewed', skew: 0.8 }, 10)).toEqual([8, 1, 1]);
    expect(splitConnections({ replicas: 3, spread: 'round-robin', skew: 0.8 }, 2)).toEqual([1, 1, 1]);
    expect(splitConnections({ replicas: 1, spread: 'skewed', skew: 0.8 }, 5)).toEqual([5]);
  });
});
