import { placeCold, preferWarm, type Prefix, type WarmPrefix } from '../core/cache-affinity.js';
import type { CapacityBook } from '../core/capacity.js';
import type { CircuitBook } from '../core/circuit-book.js';
import type { WaitFacts } from '../core/decide-next.js';
import type { Ewma } from '../core/ewma.js';
import { chooseExploration, type ExploreSettings } from '../core/explore.js';
import type { Rng } from '../core/rng.js';
import { rankCandidates, rankOrder, type CandidateFacts, type ScoreWeights, type Scored } from '../core/scoring.js';
import type { AttemptRecord, ChatRequest } from '../core/types.js';
import { uncachedInput } from './prefix-keys.js';
import { candidateOf, type TargetRuntime } from './target.js';

/** A target admitted through its circuits, with the probe leases it took on the way. */
export interface Pick {
  target: TargetRuntime;
  probes: readonly string[];
}

/** What selection reads of a request. */
export interface Selectable {
  req: ChatRequest;
  inputTokens: number;
  attempts: readonly AttemptRecord[];
  /** Targets that failed since the last wait, without a window of their own. */
  excluded?: ReadonlySet<string>;
  /** The request's cacheable prompt prefixes, longest first (empty without cache affinity). */
  prefixes: readonly Prefix[];
  /** Where its prefix is warm, looked up when it arrived. */
  warm?: WarmPrefix;
}

/** What a selector reads. */
export interface SelectorBooks {
  circuits: CircuitBook;
  capacity: CapacityBook;
  /** Each provider's reliability average. */
  reliability: ReadonlyMap<string, Ewma>;
  /** The ranking's tie-breaks are drawn from it (the same Rng as the backoff's jitter). */
  rng: Rng;
}

/** How a selector ranks and how far ahead it looks. */
export interface SelectorSettings {
  weights: ScoreWeights;
  /** Whether cache affinity puts a warm target first. */
  affinity: boolean;
  /** A target paused for longer than this is not counted as coming back. */
  maxWaitMs: number;
  /** No earliest time is further away than this (breaker.maxOpenFor). */
  maxOpenForMs: number;
  /** The share of first attempts sent to an unmeasured or stale target, and when facts go stale. */
  explore: ExploreSettings;
}

/** No probe taken: shared by every pick through closed circuits (never mutated; a probe makes a new array). */
const NO_PROBES: readonly string[] = Object.freeze([]);

/**
 * Which target a request goes to: the targets usable now (not failed in it, not disabled,
 * circuits passable, capacity free), ranked, the warm one first, admitted through their circuits
 * with probe leases; and the capacity facts a request that must wait is judged on.
 */
export class Selector {
  /** How requests fared by cache affinity: their prefix warm at a usable target, at another, or nowhere. */
  readonly affinityCounts = { warm: 0, fallback: 0, cold: 0 };
  /** The ranking's seeded tie-break, made once rather than per request. */
  private readonly tiebreak = () => this.d.rng.next();

  constructor(
    private readonly d: SelectorBooks,
    private readonly s: SelectorSettings,
  ) {}

  /** Ranks the candidates that can serve now and admits the best through its circuits. */
  select(candidates: readonly TargetRuntime[], state: Selectable, now: number): Pick | undefined {
    const usable: TargetRuntime[] = [];
    for (const t of candidates) if (this.usableNow(t, state, now)) usable.push(t);
    if (usable.length === 0) return undefined;
    // One usable target needs no ranking: it is admitted or nothing is.
    let ranked =
      usable.length === 1
        ? usable
        : this.rankTargets(
            usable,
            state.inputTokens,
            state.req.max_completion_tokens ?? state.req.max_tokens ?? 256,
            now,
          );
    // A request with a cacheable prefix does not explore: a cold key would cost its prompt again.
    if (state.attempts.length === 0 && state.prefixes.length === 0) ranked = this.explored(ranked, now);
    if (this.s.affinity && state.prefixes.length > 0 && state.attempts.length === 0) {
      // Cache affinity: the target where this prompt's prefix is warm goes first if it can serve now;
      // a prefix to be written afresh goes to the roomiest key of the best-ranked provider and model.
      const warm = state.warm?.target;
      const result = warm === undefined ? 'cold' : usable.some((t) => t.id === warm) ? 'warm' : 'fallback';
      this.affinityCounts[result]++;
      ranked =
        result === 'warm'
          ? preferWarm(
              ranked.map((t) => ({ target: t.id, t })),
              warm,
            ).map((r) => r.t)
          : placeCold(ranked, (t) => this.d.capacity.headroom(t.id, now));
    }
    for (const target of ranked) {
      const pick = this.admit(target, now);
      if (pick) return pick;
    }
    return undefined;
  }

  /** The ranking with, for a share of first attempts, an unmeasured or stale target put first. */
  private explored(ranked: TargetRuntime[], now: number): TargetRuntime[] {
    const i = chooseExploration(ranked, now, this.s.explore, this.d.rng);
    return i === undefined ? ranked : [ranked[i]!, ...ranked.slice(0, i), ...ranked.slice(i + 1)];
  }

  /** Passes a target's circuits in order; refused by one, the probe leases taken before it go back. */
  private admit(target: TargetRuntime, now: number): Pick | undefined {
    let probes = NO_PROBES;
    for (const scope of target.scopes) {
      const pass = this.d.circuits.pass(scope, now);
      if (!pass) {
        this.releaseProbes({ probes }, now);
        return undefined;
      }
      if (pass.probe) probes = [...probes, scope];
    }
    return { target, probes };
  }

  /** Gives back a pick's probe leases untested. */
  releaseProbes(pick: { probes: readonly string[] }, now: number): void {
    for (const scope of pick.probes) this.d.circuits.release(scope, now);
  }

  /**
   * The tokens a target's limits will be charged up front: where the prompt's prefix is warm and
   * the vendor does not charge cache reads to input limits, only the rest of the prompt.
   */
  admissionTokens(t: TargetRuntime, state: Selectable): number {
    const warm = state.warm;
    const input =
      warm !== undefined && warm.target === t.id
        ? uncachedInput(t.adapter.vendor, state.inputTokens, warm.tokens)
        : state.inputTokens;
    return t.adapter.admissionTokens(state.req, input);
  }

  /** Whether a target can take this request now: not failed in it, not disabled, circuits passable, capacity free. */
  private usableNow(t: TargetRuntime, state: Selectable, now: number): boolean {
    if (state.excluded?.has(t.id) || t.disabledUntil > now) return false;
    for (const scope of t.scopes) if (!this.d.circuits.isPassable(scope, now)) return false;
    return this.d.capacity.availableAt(t.id, this.admissionTokens(t, state), now) <= now;
  }

  /** The usable targets best first, as `rank` orders them (same scores, same draws), with nothing explained. */
  private rankTargets(
    usable: TargetRuntime[],
    inputTokens: number,
    expectedOutput: number,
    now: number,
  ): TargetRuntime[] {
    const order = rankOrder(this.factsOf(usable, inputTokens, expectedOutput, now), this.s.weights, this.tiebreak);
    const out: TargetRuntime[] = [];
    for (const i of order) out.push(usable[i]!);
    return out;
  }

  /** The targets ranked with each score explained (for the state view); draws as a request's ranking does. */
  rank(targets: readonly TargetRuntime[], inputTokens: number, expectedOutput: number, now: number): Scored[] {
    return rankCandidates(this.factsOf(targets, inputTokens, expectedOutput, now), this.s.weights, this.tiebreak);
  }

  /** Each target as the scorer sees it for this request. */
  private factsOf(
    targets: readonly TargetRuntime[],
    inputTokens: number,
    expectedOutput: number,
    now: number,
  ): CandidateFacts[] {
    const facts: CandidateFacts[] = [];
    for (const t of targets)
      facts.push(
        candidateOf(t, inputTokens, expectedOutput, this.d.reliability.get(t.provider)!, this.d.capacity, now),
      );
    return facts;
  }

  /**
   * When the first candidate could be tried; `waiting` counts a probe in flight as now (its answer
   * wakes waiters). Never further than `breaker.maxOpenFor`: no learned reset, however absurd,
   * makes a client wait longer than the longest window a hint is honoured for.
   */
  earliestAvailable(candidates: readonly TargetRuntime[], now: number, waiting = false): number {
    const earliest = this.earliestUncapped(candidates, now, waiting);
    return Number.isFinite(earliest) ? Math.min(earliest, now + this.s.maxOpenForMs) : earliest;
  }

  private earliestUncapped(candidates: readonly TargetRuntime[], now: number, waiting: boolean): number {
    let earliest = Infinity;
    for (const t of candidates) {
      if (t.disabledUntil > now + this.s.maxWaitMs) continue;
      // As Math.max over the target's own pause, each scope's circuit and its capacity, in that order.
      let at = t.disabledUntil;
      for (const scope of t.scopes)
        at = Math.max(at, waiting ? this.d.circuits.waitableAt(scope, now) : this.d.circuits.availableAt(scope, now));
      at = Math.max(at, this.d.capacity.availableAt(t.id, 0, now));
      earliest = Math.min(earliest, at);
    }
    return earliest;
  }

  /** What a request nothing can serve now is judged on, given how many wait and how many of them for its model. */
  waitFacts(
    candidates: readonly TargetRuntime[],
    state: Selectable,
    now: number,
    waiting: number,
    ahead: number,
  ): WaitFacts {
    return {
      waitableAt: this.earliestAvailable(candidates, now, true),
      availableAt: this.earliestAvailable(candidates, now),
      waiting,
      ahead,
      expectedRequests: (from, to) => this.expectedRequests(candidates, state, now, from, to),
    };
  }

  /**
   * The requests the candidates are expected to take between `from` and `to`, each from when it
   * could next be waited for (a probe in flight may answer, and wake waiters, any moment);
   * Infinity as soon as one's limits are unknown.
   */
  private expectedRequests(
    candidates: readonly TargetRuntime[],
    state: Selectable,
    now: number,
    from: number,
    to: number,
  ): number {
    let expected = 0;
    for (const t of candidates) {
      let at = Math.max(from, t.disabledUntil);
      for (const scope of t.scopes) at = Math.max(at, this.d.circuits.waitableAt(scope, now));
      if (at >= to) continue;
      expected += this.d.capacity.expectedRequests(t.id, this.admissionTokens(t, state), at, to);
      if (expected === Infinity) return Infinity;
    }
    return expected;
  }
}
