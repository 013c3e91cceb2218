import type { Report } from './report.js';

/**
 * Verdicts from worst to best: a move to the left is a regression. `inconclusive` (the harness
 * could not judge, e.g. it lagged) is better than a failure but worse than a pass. A run
 * `interrupted` ranks with `fail`: never a pass. `skip` (nothing to judge) is ranked for sorting
 * only: a move to or from it is a change of coverage, not of quality (see {@link verdictMove}).
 */
export const VERDICT_RANK: Readonly<Record<string, number>> = {
  fail: 0,
  interrupted: 0,
  inconclusive: 1,
  skip: 2,
  pass: 3,
};

/** Which way is better for a check's `value` (checks not listed are shown, never gated on their figure). */
const BETTER: Readonly<Record<string, 'lower' | 'higher'>> = {
  'no-429': 'lower',
  'retry-after': 'lower',
  deadline: 'lower',
  'failover-latency': 'lower',
  'single-probe': 'lower',
  'no-blind-retry': 'higher',
  amplification: 'lower',
  goodput: 'higher',
  'key-isolation': 'lower',
  'stream-integrity': 'lower',
  usage: 'lower',
};

/** How much worse a figure may get before the comparison says it regressed. */
export interface CompareTolerance {
  /** Relative change in the wrong direction, in percent, allowed for counts, shares and ratios (default 10). */
  percent: number;
  /**
   * Relative change allowed for figures in milliseconds (latency percentiles, timing checks), in
   * percent; undefined: they are shown but never gated, since wall-clock times depend on the machine.
   */
  latencyPercent?: number;
  /** Absolute change in ms below which a timing figure never counts as worse (default 50). */
  latencySlackMs: number;
}

export const DEFAULT_TOLERANCE: CompareTolerance = { percent: 10, latencySlackMs: 50 };

/** One figure before and after. */
export interface FigureChange {
  name: string;
  before: number | null;
  after: number | null;
  unit: string;
  /** Moved the wrong way beyond the tolerance. */
  worse: boolean;
  /** Moved the right way beyond the tolerance. */
  better: boolean;
  /** Not gated (a timing figure without a latency tolerance, or a figure with no known direction). */
  informational: boolean;
}

/** One check of one scenario before and after. */
export interface CheckChange {
  id: string;
  /** The unit of the check's figure (the after run's, else the before run's). */
  unit: string;
  before?: { verdict: string; figure: string; value: number | null };
  after?: { verdict: string; figure: string; value: number | null };
  verdictWorse: boolean;
  verdictBetter: boolean;
  /** Judged on one side only (skipped or absent on the other): what was covered changed, not how well. */
  coverage: boolean;
  value?: FigureChange;
  worse: boolean;
  better: boolean;
}

/** One scenario before and after (matched by name). */
export interface ScenarioChange {
  name: string;
  before?: { verdict: string; router: string; seed: number };
  after?: { verdict: string; router: string; seed: number };
  figures: FigureChange[];
  checks: CheckChange[];
  worse: boolean;
  better: boolean;
}

/** The overall answer: `mixed` when some things got better and others worse. */
export type CompareVerdict = 'better' | 'worse' | 'mixed' | 'same';

/** What changed between two report files. */
export interface Comparison {
  scenarios: ScenarioChange[];
  verdict: CompareVerdict;
  /** Something got worse (the verdict is `worse` or `mixed`): the gate fails. */
  worse: boolean;
  tolerance: CompareTolerance;
}

const rank = (verdict: string) => VERDICT_RANK[verdict] ?? 0;

/**
 * How a verdict moved. A move to `skip` or to nothing (the check was not judged afterwards) is a
 * coverage change, as is a move from `skip` or from nothing to a pass: neither says the router got
 * worse or better. A move from nothing judged to a failure is worse: the router fails that check now.
 */
export function verdictMove(
  before: string | undefined,
  after: string | undefined,
): 'worse' | 'better' | 'coverage' | 'same' {
  const judged = (v: string | undefined) => v !== undefined && v !== 'skip';
  if (!judged(before) && !judged(after)) return before === after ? 'same' : 'coverage';
  if (!judged(after)) return 'coverage';
  if (!judged(before)) return rank(after!) < VERDICT_RANK.pass! ? 'worse' : 'coverage';
  const d = rank(after!) - rank(before!);
  return d < 0 ? 'worse' : d > 0 ? 'better' : 'same';
}

function figure(
  name: string,
  before: number | null | undefined,
  after: number | null | undefined,
  unit: string,
  better: 'lower' | 'higher' | undefined,
  t: CompareTolerance,
): FigureChange {
  const b = before ?? null;
  const a = after ?? null;
  const timing = unit.startsWith('ms');
  const percent = timing ? t.latencyPercent : t.percent;
  const informational = better === undefined || percent === undefined;
  const change: FigureChange = { name, before: b, after: a, unit, worse: false, better: false, informational };
  if (informational || b === null || a === null) return change;
  const allowed = Math.max((Math.abs(b) * percent) / 100, timing ? t.latencySlackMs : 0);
  const wrongWay = better === 'lower' ? a - b : b - a;
  change.worse = wrongWay > allowed;
  change.better = -wrongWay > allowed;
  return change;
}

/** Attempts that reached the providers per request sent (null without requests). */
export function attemptsPerRequest(r: Report): number | null {
  if (r.load.sent === 0) return null;
  return r.series.providers.reduce((n, p) => n + p.totals.attempts, 0) / r.load.sent;
}

/** Share of the requests sent that got a 2xx answer (null without requests). */
export function okShare(r: Report): number | null {
  if (r.load.sent === 0) return null;
  const ok = Object.entries(r.load.byStatus).reduce(
    (n, [status, count]) => n + (/^2\d\d$/.test(status) ? count : 0),
    0,
  );
  return ok / r.load.sent;
}

function compareScenario(
  name: string,
  b: Report | undefined,
  a: Report | undefined,
  t: CompareTolerance,
): ScenarioChange {
  const side = (r: Report | undefined) => r && { verdict: r.verdict as string, router: r.router, seed: r.seed };
  const figures = [
    figure('latency p50', b?.latency.answered.p50, a?.latency.answered.p50, 'ms', 'lower', t),
    figure('latency p90', b?.latency.answered.p90, a?.latency.answered.p90, 'ms', 'lower', t),
    figure('latency p99', b?.latency.answered.p99, a?.latency.answered.p99, 'ms', 'lower', t),
    figure('answered 2xx', b && okShare(b), a && okShare(a), 'share', 'higher', t),
    figure('attempts per request', b && attemptsPerRequest(b), a && attemptsPerRequest(a), 'ratio', 'lower', t),
  ];
  const ids = [...new Set([...(b?.checks ?? []).map((c) => c.id), ...(a?.checks ?? []).map((c) => c.id)])];
  const checks = ids.map((id): CheckChange => {
    const cb = b?.checks.find((c) => c.id === id);
    const ca = a?.checks.find((c) => c.id === id);
    const pick = (c: typeof cb) => c && { verdict: c.verdict as string, figure: c.figure, value: c.value };
    const move = verdictMove(cb?.verdict, ca?.verdict);
    const verdictWorse = move === 'worse';
    const verdictBetter = move === 'better';
    // A figure only matters where both were judged: a skipped check's figure says nothing.
    const judged = cb && ca && cb.verdict !== 'skip' && ca.verdict !== 'skip';
    const value = judged ? figure(id, cb.value, ca.value, ca.unit ?? cb.unit ?? '', BETTER[id], t) : undefined;
    return {
      id,
      unit: ca?.unit ?? cb?.unit ?? '',
      before: pick(cb),
      after: pick(ca),
      verdictWorse,
      verdictBetter,
      coverage: move === 'coverage',
      value,
      worse: verdictWorse || value?.worse === true,
      better: verdictBetter || value?.better === true,
    };
  });
  // A whole scenario missing afterwards is worse (a pack that shrank would hide its failures);
  // otherwise the scenario's verdict moves as a check's does.
  const move = a === undefined ? (b === undefined ? 'same' : 'worse') : verdictMove(b?.verdict, a.verdict);
  return {
    name,
    before: side(b),
    after: side(a),
    figures,
    checks,
    worse: move === 'worse' || figures.some((f) => f.worse) || checks.some((c) => c.worse),
    better: move === 'better' || figures.some((f) => f.better) || checks.some((c) => c.better),
  };
}

/**
 * Compares two runs (or two conformance packs) scenario by scenario and check by check: verdicts
 * by their rank, figures within the tolerance, moves to or from SKIP as coverage. A scenario
 * missing afterwards is worse; a check missing afterwards is a coverage change.
 */
export function compareReports(
  before: readonly Report[],
  after: readonly Report[],
  tolerance: CompareTolerance = DEFAULT_TOLERANCE,
): Comparison {
  const names = [...new Set([...before.map((r) => r.scenario.name), ...after.map((r) => r.scenario.name)])];
  const scenarios = names.map((name) =>
    compareScenario(
      name,
      before.find((r) => r.scenario.name === name),
      after.find((r) => r.scenario.name === name),
      tolerance,
    ),
  );
  const worse = scenarios.some((s) => s.worse);
  const better = scenarios.some((s) => s.better);
  const verdict: CompareVerdict = worse ? (better ? 'mixed' : 'worse') : better ? 'better' : 'same';
  return { scenarios, verdict, worse, tolerance };
}
