/** Relative weights of the scoring dimensions. */
export interface ScoreWeights {
  cost: number;
  latency: number;
  reliability: number;
  quality: number;
  capacity: number;
}

/** What is known of one candidate when ranking. */
export interface CandidateFacts {
  target: string;
  /** Estimated price of this request, in dollars. */
  costUsd: number;
  /** Expected time to first token, ms (EWMA). */
  ttftMs: number;
  /** Expected total latency, ms (EWMA). */
  latencyMs: number;
  /** Recent success share in [0, 1]. */
  reliability: number;
  /** Configured quality in [0, 1]. */
  quality: number;
  /** Capacity left in [0, 1]. */
  headroom: number;
}

/** A ranked candidate with its score explained per dimension (each in [0, 1], higher is better). */
export interface Scored {
  target: string;
  score: number;
  parts: Record<keyof ScoreWeights, number>;
}

// Lower is better: the cheapest (or fastest) scores 1 and the dearest 0, relative to the field.
function inverseRank(values: number[], v: number): number {
  const min = Math.min(...values);
  const max = Math.max(...values);
  return max === min ? 1 : (max - v) / (max - min);
}

/**
 * Ranks candidates on cost, latency, reliability, quality and capacity with configurable weights.
 * Cost and latency are normalised across the field; the others are absolute. Ties are broken by
 * `tiebreak` (a seeded draw), so equal candidates share the load.
 */
export function rankCandidates(facts: readonly CandidateFacts[], w: ScoreWeights, tiebreak: () => number): Scored[] {
  const costs = facts.map((f) => f.costUsd);
  const latencies = facts.map((f) => f.ttftMs + f.latencyMs);
  const total = w.cost + w.latency + w.reliability + w.quality + w.capacity || 1;
  return facts
    .map((f) => {
      const parts = {
        cost: inverseRank(costs, f.costUsd),
        latency: inverseRank(latencies, f.ttftMs + f.latencyMs),
        reliability: f.reliability,
        quality: f.quality,
        capacity: f.headroom,
      };
      const score =
        (w.cost * parts.cost +
          w.latency * parts.latency +
          w.reliability * parts.reliability +
          w.quality * parts.quality +
          w.capacity * parts.capacity) /
        total;
      return { target: f.target, score, parts, t: tiebreak() };
    })
    .sort((a, b) => b.score - a.score || a.t - b.t)
    .map(({ target, score, parts }) => ({ target, score, parts }));
}
