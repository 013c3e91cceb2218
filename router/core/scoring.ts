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
 * Scores every candidate into `scores` and draws its tie-break into `draws`, in order (the explained
 * parts into `parts` when asked); whether every score and draw is finite. The field's extremes are
 * found once, in loops rather than spread arrays (Math.min over the same values in the same
 * order: NaN and -0 come out as they did).
 */
function scoreAll(
  facts: readonly CandidateFacts[],
  w: ScoreWeights,
  tiebreak: () => number,
  scores: number[],
  draws: number[],
  parts?: Array<Scored['parts']>,
): boolean {
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
  let finite = true;
  for (const f of facts) {
    const cost = inverseRank(costMin, costMax, f.costUsd);
    const latency = inverseRank(latencyMin, latencyMax, f.ttftMs + f.latencyMs);
    const score =
      (w.cost * cost +
        w.latency * latency +
        w.reliability * f.reliability +
        w.quality * f.quality +
        w.capacity * f.headroom) /
      total;
    const t = tiebreak();
    if (!Number.isFinite(score) || !Number.isFinite(t)) finite = false;
    scores.push(score);
    draws.push(t);
    parts?.push({ cost, latency, reliability: f.reliability, quality: f.quality, capacity: f.headroom });
  }
  return finite;
}

/**
 * Indexes by score, best first, ties by draw, as sorting by `b.score - a.score || a.t - b.t` puts
 * them. Over finite numbers that order is total and the sort stable, so an insertion sort gives
 * exactly what Array.prototype.sort would, without the work arrays it allocates on every call;
 * NaN or infinite scores make the comparison inconsistent, and are left to the engine's sort.
 */
function order(scores: readonly number[], draws: readonly number[], finite: boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < scores.length; i++) out.push(i);
  if (!finite) return out.sort((a, b) => scores[b]! - scores[a]! || draws[a]! - draws[b]!);
  for (let i = 1; i < out.length; i++) {
    const s = scores[i]!;
    const t = draws[i]!;
    let j = i - 1;
    while (j >= 0 && (scores[out[j]!]! < s || (scores[out[j]!]! === s && draws[out[j]!]! > t))) {
      out[j + 1] = out[j]!;
      j--;
    }
    out[j + 1] = i;
  }
  return out;
}

/**
 * Ranks candidates on cost, latency, reliability, quality and capacity with configurable weights.
 * Cost and latency are normalised across the field; the others are absolute. Ties are broken by
 * `tiebreak` (a seeded draw), so equal candidates share the load.
 */
export function rankCandidates(facts: readonly CandidateFacts[], w: ScoreWeights, tiebreak: () => number): Scored[] {
  const scores: number[] = [];
  const draws: number[] = [];
  const parts: Array<Scored['parts']> = [];
  const finite = scoreAll(facts, w, tiebreak, scores, draws, parts);
  return order(scores, draws, finite).map((i) => ({ target: facts[i]!.target, score: scores[i]!, parts: parts[i]! }));
}

/**
 * The order `rankCandidates` puts the candidates in, as indexes into `facts`, without the scores
 * explained: the same arithmetic and draws, for the router's every request, where only the order
 * counts.
 */
export function rankOrder(facts: readonly CandidateFacts[], w: ScoreWeights, tiebreak: () => number): number[] {
  const scores: number[] = [];
  const draws: number[] = [];
  return order(scores, draws, scoreAll(facts, w, tiebreak, scores, draws));
}
