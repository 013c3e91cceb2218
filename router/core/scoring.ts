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
function inverseRank(min: number, max: number, v: number): number {
  return max === min ? 1 : (max - v) / (max - min);
}

/**
 * Ranks candidates on cost, latency, reliability, quality and capacity with configurable weights.
 * Cost and latency are normalised across the field; the others are absolute. Ties are broken by
 * `tiebreak` (a seeded draw), so equal candidates share the load.
 */
export function rankCandidates(facts: readonly CandidateFacts[], w: ScoreWeights, tiebreak: () => number): Scored[] {
  // Runs for every request: the field's extremes are found once, in loops rather than spread
  // arrays (Math.min over the same values in the same order: NaN and -0 come out as before).
  let costMin = Infinity;
  let costMax = -Infinity;
  let latencyMin = Infinity;
  let latencyMax = -Infinity;
  for (const f of facts) {
    costMin = Math.min(costMin, f.costUsd);
    costMax = Math.max(costMax, f.costUsd);
    const latency = f.ttftMs + f.latencyMs;
    latencyMin = Math.min(latencyMin, latency);
    latencyMax = Math.max(latencyMax, latency);
  }
  const total = w.cost + w.latency + w.reliability + w.quality + w.capacity || 1;
  const out: Scored[] = [];
  const draws: number[] = [];
  let finite = true;
  for (const f of facts) {
    const parts = {
      cost: inverseRank(costMin, costMax, f.costUsd),
      latency: inverseRank(latencyMin, latencyMax, f.ttftMs + f.latencyMs),
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
    const t = tiebreak();
    if (!Number.isFinite(score) || !Number.isFinite(t)) finite = false;
    out.push({ target: f.target, score, parts });
    draws.push(t);
  }
  if (finite) {
    // Best score first, ties by draw: over finite numbers this order is total and the sort
    // stable, so an insertion sort gives exactly what Array.prototype.sort would, without the
    // work arrays it allocates on every call.
    for (let i = 1; i < out.length; i++) {
      const s = out[i]!;
      const t = draws[i]!;
      let j = i - 1;
      while (j >= 0 && (out[j]!.score < s.score || (out[j]!.score === s.score && draws[j]! > t))) {
        out[j + 1] = out[j]!;
        draws[j + 1] = draws[j]!;
        j--;
      }
      out[j + 1] = s;
      draws[j + 1] = t;
    }
    return out;
  }
  // NaN or infinite scores make the comparison below inconsistent: left to the engine's sort, as ever.
  const drawn = out.map((scored, i) => ({ scored, t: draws[i]! }));
  drawn.sort((a, b) => b.scored.score - a.scored.score || a.t - b.t);
  return drawn.map((d) => d.scored);
}
