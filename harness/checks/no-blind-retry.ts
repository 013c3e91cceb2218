import type { LedgerRow } from '../../simulator/index.js';
import { attemptsByRequest } from './attempts-by-request.js';
import { count, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

/** A failure that announced no wait: an error status, a dead connection, or an answer that did not complete (cut, reset, abandoned). */
function hintless(r: LedgerRow): boolean {
  if (r.hintMs !== null && r.hintMs > 0) return false;
  if (r.end === 'pending') return false;
  return r.status === 0 || r.status >= 500 || r.status === 429 || (r.status === 200 && r.end !== 'complete');
}

/** Fewest pairs of successive gaps that judge whether a router's backoff grows. */
export const MIN_GROWTH_PAIRS = 5;
/** Growth below this factor per retry (the geometric mean of successive gaps' ratios) is no backoff. */
const GROWTH = Math.SQRT2;
/** The spread of log-ratios assumed at least (a fixed loop's are all but equal). */
const MIN_SD = 0.1;

/** A retry after a hint-less failure: the request came back to the same provider `gapMs` later. */
interface Retry {
  failed: LedgerRow;
  next: LedgerRow;
  gapMs: number;
}

/**
 * After a failure that announced no wait (a 5xx, a hint-less 429, a reset, a hang, a stream cut
 * short, an attempt the router abandoned), the same request must back off before coming back to
 * the same provider, and the backoff must grow as the failures go on. Judged per request, so that
 * independent traffic arriving meanwhile is not mistaken for a retry.
 *
 * - The floor: no retry sooner than `floor` (50 ms) after the failure: an immediate retry is blind.
 * - Growth: successive gaps of one request to one provider, while under half the `cap` (8 s, the
 *   Stainless SDKs' ceiling; a backoff at its cap stops growing), must grow. The official SDKs
 *   double from 0.5 s (`min(0.5·2ⁿ, 8)` s less up to 25 % jitter); a fixed-interval loop, however
 *   long its interval, does not grow. Jitter can make one gap shorter than the last (full jitter
 *   does a quarter of the time), so growth is judged over the run: the geometric mean of the
 *   successive gaps' ratios, with a one-sided 95 % bound (log-ratios, normal approximation, spread
 *   at least 0.1), must not lie wholly below √2. Fewer than five pairs judge no growth.
 *
 * A floor violation within the harness's own lag is INCONCLUSIVE (`timing`): a late stamp of the
 * failure's end shortens the gap by as much. A loop that does not grow is not explained by lag.
 */
export function checkNoBlindRetry({ rows, scenario }: CheckInput): CheckResult {
  const { floor, cap } = scenario.expect.noBlindRetry;
  const evidence: Evidence[] = [];
  let failures = 0;
  const retries: Retry[] = [];
  const pairs: Array<[Retry, Retry]> = [];
  for (const list of attemptsByRequest(rows).lists()) {
    const last = new Map<string, Retry>();
    for (let i = 0; i < list.length; i++) {
      const f = list[i]!;
      if (!hintless(f)) {
        last.delete(f.provider);
        continue;
      }
      failures++;
      const next = list.slice(i + 1).find((r) => r.provider === f.provider);
      const before = last.get(f.provider);
      last.delete(f.provider);
      if (!next) continue;
      const retry: Retry = { failed: f, next, gapMs: next.arrivalAt - (f.endAt ?? f.firstByteAt ?? f.arrivalAt) };
      retries.push(retry);
      // The failure was itself a retry after a hint-less failure: two successive gaps.
      if (before && before.next === f && before.gapMs < cap / 2) pairs.push([before, retry]);
      last.set(f.provider, retry);
    }
  }
  const short = retries.filter((r) => r.gapMs < floor);
  for (const r of short) if (evidence.length < MAX_EVIDENCE) evidence.push(shortEvidence(r));
  const growth = judgeGrowth(pairs);
  if (growth.fails)
    for (const [a, b] of pairs.filter(([x, y]) => y.gapMs <= x.gapMs * GROWTH))
      if (evidence.length < MAX_EVIDENCE) evidence.push(flatEvidence(a, b));
  const smallest = retries.length ? retries.reduce((m, r) => Math.min(m, r.gapMs), Infinity) : null;
  const violations = short.length + (growth.fails ? growth.flat : 0);
  const growthWords =
    pairs.length === 0
      ? ''
      : pairs.length < MIN_GROWTH_PAIRS
        ? `; ${count(pairs.length, 'pair')} of successive gaps, too few to judge growth`
        : `; successive gaps grew ×${growth.factor.toFixed(2)} (geometric mean over ${count(pairs.length, 'pair')}, 95 % bound ×${growth.upper.toFixed(2)})${growth.fails ? `: no backoff growth, needs ×${GROWTH.toFixed(2)}` : ''}`;
  return {
    id: 'no-blind-retry',
    title: 'No blind retries',
    meaning:
      'After a failure without a wait hint, the router backed off before trying the same provider again, and backed off longer each time.',
    verdict: violations > 0 ? 'fail' : failures === 0 ? 'skip' : 'pass',
    ...(failures === 0 ? { reason: 'no attempt failed without a wait hint' } : {}),
    figure:
      failures === 0
        ? 'no hint-less failures'
        : smallest !== null
          ? `smallest gap ${Math.round(smallest)} ms after ${count(failures, 'hint-less failure')}${short.length ? `; ${short.length} of ${failures} (${((short.length / failures) * 100).toFixed(1)} %) retried under the floor` : ''}${growthWords}`
          : `${count(failures, 'hint-less failure')}, never retried on the same provider`,
    value: smallest,
    unit: 'ms',
    threshold: `floor ${floor} ms; successive gaps under ${cap / 2} ms grow ×${GROWTH.toFixed(2)} or more (from ${MIN_GROWTH_PAIRS} pairs)`,
    ...(short.length > 0 && !growth.fails
      ? { timing: { toleranceMs: 0, worstMarginMs: floor - short.reduce((m, r) => Math.min(m, r.gapMs), Infinity) } }
      : {}),
    violations,
    evidence,
    details: { retries: retries.length, growthPairs: pairs.length, growthFactor: pairs.length ? growth.factor : null },
  };
}

/**
 * Whether successive gaps fail to grow: the upper one-sided 95 % bound of their mean log-ratio
 * below ln √2, over at least MIN_GROWTH_PAIRS pairs. `flat`: the pairs that did not grow by √2.
 */
export function judgeGrowth(pairs: ReadonlyArray<readonly [{ gapMs: number }, { gapMs: number }]>): {
  fails: boolean;
  factor: number;
  upper: number;
  flat: number;
} {
  const logs = pairs.map(([a, b]) => Math.log(Math.max(1, b.gapMs) / Math.max(1, a.gapMs)));
  const n = logs.length;
  if (n === 0) return { fails: false, factor: 1, upper: Infinity, flat: 0 };
  const mean = logs.reduce((s, v) => s + v, 0) / n;
  const sd = n > 1 ? Math.sqrt(logs.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1)) : 0;
  const upper = mean + (1.645 * Math.max(sd, MIN_SD)) / Math.sqrt(n);
  return {
    fails: n >= MIN_GROWTH_PAIRS && upper < Math.log(GROWTH),
    factor: Math.exp(mean),
    upper: Math.exp(upper),
    flat: logs.filter((v) => v <= Math.log(GROWTH)).length,
  };
}

function shortEvidence({ failed: f, next, gapMs }: Retry): Evidence {
  return {
    at: next.arrivalAt,
    correlationId: f.correlationId,
    provider: f.provider,
    key: next.key,
    model: next.model,
    detail: `retried ${Math.round(gapMs)} ms after a hint-less ${f.status === 0 ? f.end : f.status}`,
  };
}

function flatEvidence(a: Retry, b: Retry): Evidence {
  return {
    at: b.next.arrivalAt,
    correlationId: b.failed.correlationId,
    provider: b.failed.provider,
    key: b.next.key,
    model: b.next.model,
    detail: `backoff did not grow: retried ${Math.round(a.gapMs)} ms, then ${Math.round(b.gapMs)} ms after hint-less ${a.failed.status === 0 ? a.failed.end : a.failed.status} and ${b.failed.status === 0 ? b.failed.end : b.failed.status}`,
  };
}
