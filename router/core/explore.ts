import type { Rng } from './rng.js';

/** How much of the traffic goes to targets the router knows too little about. */
export interface ExploreSettings {
  /** Share of requests, in [0, 1], that try an unmeasured or stale target first (0: never). */
  share: number;
  /** A target last measured longer ago than this is stale, in ms. */
  staleAfterMs: number;
}

/** What exploring needs of a usable target, best ranked first. */
export interface ExploreCandidate {
  /** When an attempt to it last ended, or undefined if none has. */
  measuredAt: number | undefined;
}

function unknownAt(c: ExploreCandidate, now: number, s: ExploreSettings): boolean {
  return c.measuredAt === undefined || now - c.measuredAt > s.staleAfterMs;
}

/**
 * Which ranked candidate to try first instead of the best, or undefined to keep the ranking.
 * Explores only while the best is measured and fresh (a router that knows nothing is already
 * exploring), and only one request in `share`: the first draw decides whether this one explores,
 * the second which of the unmeasured or stale candidates it tries. Nothing is drawn when there is
 * nothing to explore, so a router with every target measured draws as it did without exploring.
 */
export function chooseExploration(
  ranked: readonly ExploreCandidate[],
  now: number,
  s: ExploreSettings,
  rng: Rng,
): number | undefined {
  if (s.share <= 0 || ranked.length < 2 || unknownAt(ranked[0]!, now, s)) return undefined;
  const unknown: number[] = [];
  for (let i = 1; i < ranked.length; i++) if (unknownAt(ranked[i]!, now, s)) unknown.push(i);
  if (unknown.length === 0 || rng.next() >= s.share) return undefined;
  return unknown[Math.min(unknown.length - 1, Math.floor(rng.next() * unknown.length))];
}
