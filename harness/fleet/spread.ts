import { createRng, deriveSeed } from '../../simulator/index.js';

/** How a fleet's load is spread across its replicas. */
export interface Spread {
  replicas: number;
  spread: 'round-robin' | 'skewed';
  /** The first replica's share when skewed. */
  skew: number;
}

/**
 * Which replica request `n` goes to: in turn (round robin), or, skewed, the first replica with
 * probability `skew` and the others evenly otherwise, drawn from the seed so a replay sends each
 * request to the same replica.
 */
export function replicaPicker(s: Spread, seed: number): (n: number) => number {
  if (s.replicas <= 1) return () => 0;
  if (s.spread === 'round-robin') return (n) => n % s.replicas;
  return (n) => {
    const rng = createRng(deriveSeed(seed, 17, n));
    if (rng.next() < s.skew) return 0;
    return 1 + Math.min(s.replicas - 2, Math.floor(rng.next() * (s.replicas - 1)));
  };
}

/** Splits `total` closed-loop connections over the replicas as the spread says (each at least one). */
export function splitConnections(s: Spread, total: number): number[] {
  const n = s.replicas;
  if (n <= 1) return [total];
  const counts = new Array<number>(n).fill(0);
  if (s.spread === 'skewed') {
    counts[0] = Math.max(1, Math.round(total * s.skew));
    const rest = Math.max(n - 1, total - counts[0]);
    for (let i = 1; i < n; i++) counts[i] = Math.floor(rest / (n - 1)) + (i - 1 < rest % (n - 1) ? 1 : 0);
    return counts;
  }
  for (let i = 0; i < n; i++) counts[i] = Math.max(1, Math.floor(total / n) + (i < total % n ? 1 : 0));
  return counts;
}
