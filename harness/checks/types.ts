import type { LedgerRow } from '../../simulator/index.js';
import type { ClientOutcome } from '../load/client-outcome.js';
import type { CheckId, RunScenario } from '../scenario/schema.js';

/** How late the harness itself ran (the simulator and the load generator share one event loop in a run). */
export interface HarnessLag {
  /** Event-loop delay (node:perf_hooks monitorEventLoopDelay), ms. */
  loopP99Ms: number;
  loopMaxMs: number;
  /** Scheduled versus actual send time of the load's requests, ms. */
  sendP99Ms: number;
  sendMaxMs: number;
}

/** The larger p99 of the two lags, and which one it was, in words. */
export function worstLag(lag: HarnessLag): { ms: number; words: string } {
  return lag.sendP99Ms > lag.loopP99Ms
    ? { ms: lag.sendP99Ms, words: `load generator send lag p99 ${Math.round(lag.sendP99Ms)} ms` }
    : { ms: lag.loopP99Ms, words: `load generator lag p99 ${Math.round(lag.loopP99Ms)} ms` };
}

/** The longer of the two lags' longest stall, and which one it was, in words. */
export function longestStall(lag: HarnessLag): { ms: number; words: string } {
  return lag.sendMaxMs > lag.loopMaxMs
    ? { ms: lag.sendMaxMs, words: `load generator send lag max ${Math.round(lag.sendMaxMs)} ms` }
    : { ms: lag.loopMaxMs, words: `load generator lag max ${Math.round(lag.loopMaxMs)} ms` };
}

/** What every check sees. */
export interface CheckInput {
  outcomes: readonly ClientOutcome[];
  /** Ledger rows in arrival order. */
  rows: readonly LedgerRow[];
  scenario: RunScenario;
  /**
   * The run's seed: with the scenario's load it plans each request again, to learn what the
   * client asked (see `plannedRequests`) rather than what the router sent. Absent: unknown.
   */
  seed?: number;
  /** The harness's own lag during the run, when measured. */
  lag?: HarnessLag;
  /**
   * ms the harness's event loop (shared with the simulator, the load generator and an in-process
   * router) was behind schedule between two instants of the run; absent in simulated time.
   */
  loopBehindMs?: (from: number, to: number) => number;
  /**
   * ms the router under test, a process the harness started, waited for a CPU (runnable, not
   * scheduled: its run-queue delay) between two instants of the run; absent where not measured.
   * In a fleet, `replica` names the replica whose processes count (the one that served the
   * request); left out, the whole fleet's, for an attempt no replica accounts for.
   */
  routerWaitMs?: (from: number, to: number, replica?: number) => number;
  /**
   * The instants strictly between two at which `routerWaitMs` (for the same `replica`) was
   * sampled: between two of them its delay is known only in total, so that is where it and the
   * loop's stalls are added up (see `starvationDuring`). Absent: the span as one piece.
   */
  routerSampledAt?: (from: number, to: number, replica?: number) => readonly number[];
  /**
   * True once judging must end soon (the user stopped the run and waits for its report): a long
   * replay (the quota oracle) stops short and its check says what it could not judge.
   */
  giveUp?: () => boolean;
}

/** One piece of evidence: a violation, located in time and by correlation id. */
export interface Evidence {
  at?: number;
  correlationId?: string | null;
  provider?: string;
  key?: string;
  model?: string | null;
  detail: string;
}

/** A check's verdict with its figure and evidence. */
export interface CheckResult {
  id: CheckId;
  title: string;
  /** What passing means, for people new to the check. */
  meaning: string;
  /**
   * `skip`: nothing to judge (never a pass); `inconclusive`: a judgement the run cannot support
   * (the harness lagged more than the check tolerates, or the figure's confidence interval
   * straddles its threshold). `reason` says which.
   */
  verdict: Verdict;
  /** Why the check was skipped or inconclusive. */
  reason?: string;
  /**
   * A timing check's slack: its tolerance, and how far past it the worst violation went (ms). A
   * failure the harness's own lag could explain is inconclusive, not a fail (see `run-checks`).
   * `lagBound: 'max'`: every violation is one event stamped late by at most the stall it fell in,
   * so the longest stall (the lags' max), not their p99, says what the lag could explain.
   */
  timing?: { toleranceMs: number; worstMarginMs: number; lagBound?: 'p99' | 'max' };
  /** The figure in words, e.g. "worst early arrival 0 ms over 12 windows". */
  figure: string;
  /** The figure as a number, for machines (unit in `unit`). */
  value: number | null;
  unit?: string;
  threshold?: string;
  violations: number;
  /** The first violations (at most 20). */
  evidence: Evidence[];
  details?: Record<string, unknown>;
  /** How long judging this check took, wall ms (absent when no clock was given). */
  judgedMs?: number;
}

export const MAX_EVIDENCE = 20;

/** A check's verdict. */
export type Verdict = 'pass' | 'fail' | 'skip' | 'inconclusive';

/** Percentile of a sorted array (nearest rank); null when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** p50, p90, p99 and max of a list of values. */
export function summary(values: readonly number[]): {
  count: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
} {
  const s = sortedNumbers(values);
  return {
    count: s.length,
    p50: percentile(s, 50),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    max: s.length ? s[s.length - 1]! : null,
  };
}

/**
 * The values in ascending order, as a copy: a typed array's own sort (no comparator called a
 * million times for a day's latencies). With a NaN, whose place a comparator leaves to the sort,
 * the values are sorted as before by `a - b`, so that every figure stays what it was.
 */
function sortedNumbers(values: readonly number[]): ArrayLike<number> {
  for (const v of values) if (Number.isNaN(v)) return [...values].sort((a, b) => a - b);
  return Float64Array.from(values).sort();
}

/** `1 attempt`, `2 attempts`: a count with its noun, for figures people read. */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/** `the 1 answer`, `all 12 answers`: a whole count with its noun. */
export function allOf(n: number, noun: string, plural = `${noun}s`): string {
  return n === 1 ? `the 1 ${noun}` : `all ${n} ${plural}`;
}

/** Rounds ms for display. */
export const ms = (v: number | null) => (v === null ? 'n/a' : `${Math.round(v)} ms`);

/** A key label that names one of the provider's own keys. */
export function isOwnKey(key: string): boolean {
  return key !== 'none' && key !== 'unknown' && !key.startsWith('foreign:');
}

/** Groups items by key, keeping their order; items whose key is undefined are left out. */
export function groupBy<T>(items: Iterable<T>, keyOf: (item: T) => string | undefined): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const k = keyOf(item);
    if (k === undefined) continue;
    const list = map.get(k);
    if (list) list.push(item);
    else map.set(k, [item]);
  }
  return map;
}
