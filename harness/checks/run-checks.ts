import { CHECK_IDS, type CheckId } from '../scenario/schema.js';
import { checkAmplification } from './amplification.js';
import { checkAnswerIntegrity } from './answer-integrity.js';
import { checkClientErrors } from './client-errors.js';
import { checkContentIntegrity } from './content-integrity.js';
import { checkDuplicateWork } from './duplicate-work.js';
import { checkDeadline } from './deadline.js';
import { checkFailoverLatency } from './failover-latency.js';
import { checkGoodput, judgeGoodput } from './goodput.js';
import { checkKeyIsolation } from './key-isolation.js';
import { checkNo429 } from './no-429.js';
import { checkNoBlindRetry } from './no-blind-retry.js';
import { checkNoNeedlessError } from './no-needless-error.js';
import { checkRecovery } from './recovery.js';
import { checkNoLeak } from './no-leak.js';
import { checkOwnAnswers } from './own-answers.js';
import { checkRetryAfter } from './retry-after.js';
import { checkSingleProbe } from './single-probe.js';
import { checkStreamIntegrity } from './stream-integrity.js';
import { forgetServedAnswers } from './served-answers.js';
import { forgetAttemptsByRequest } from './attempts-by-request.js';
import { forgetAttemptsByScope } from './windows.js';
import { longestStall, worstLag, type CheckInput, type CheckResult, type HarnessLag } from './types.js';
import { checkUsage } from './usage.js';
import { checkRequestFidelity } from './request-fidelity.js';
import { checkCacheUse } from './cache-use.js';
import { notJudged } from './not-judged.js';
import { finishSliced, type Sliced } from './sliced.js';

/** Every check by id. */
export const CHECKS: Record<CheckId, (input: CheckInput & { startedAt: number }) => CheckResult> = {
  'no-429': checkNo429,
  'retry-after': checkRetryAfter,
  deadline: checkDeadline,
  'failover-latency': checkFailoverLatency,
  'single-probe': checkSingleProbe,
  'no-blind-retry': checkNoBlindRetry,
  amplification: checkAmplification,
  goodput: checkGoodput,
  'key-isolation': checkKeyIsolation,
  'stream-integrity': checkStreamIntegrity,
  'answer-integrity': checkAnswerIntegrity,
  'content-integrity': checkContentIntegrity,
  usage: checkUsage,
  'no-needless-error': checkNoNeedlessError,
  recovery: checkRecovery,
  'own-answers': checkOwnAnswers,
  'no-leak': checkNoLeak,
  'request-fidelity': checkRequestFidelity,
  'cache-use': checkCacheUse,
  'client-errors': checkClientErrors,
  'duplicate-work': checkDuplicateWork,
};

/** The checks a scenario asks for (all by default, minus `skip`), in report order. */
export function wantedChecks(scenario: CheckInput['scenario']): CheckId[] {
  const wanted = new Set(scenario.expect.checks ?? CHECK_IDS);
  for (const id of scenario.expect.skip) wanted.delete(id);
  return CHECK_IDS.filter((id) => wanted.has(id));
}

/** What the checks are given to judge (see `runChecks`). */
export type JudgeInput = CheckInput & { startedAt: number; judgeClock?: () => number };

/**
 * Runs the scenario's checks (all by default, minus `skip`), in report order. Given `judgeClock`
 * (a monotonic ms clock: `performance.now` at the edge, a fake in tests), each result says how
 * long judging it took (`judgedMs`, the JUnit test case's time).
 */
export function runChecks(input: JudgeInput): CheckResult[] {
  return finishSliced(judgeChecks(input, 'the run was stopped'), input.giveUp);
}

/**
 * `runChecks` in slices (see `Sliced`): a slice ends after each check and every few thousand steps
 * of the goodput oracle's replay. Asked to stop, the check under way ends short (the oracle says
 * what it could not bound) and every check after it is not judged, saying so (`notJudged`, with
 * `why`): a stopped run is reported in about a second, never with a pass it did not earn.
 */
export function* judgeChecks(input: JudgeInput, why: string): Sliced<CheckResult[]> {
  const clock = input.judgeClock;
  const results: CheckResult[] = [];
  let stopped = false;
  for (const id of wantedChecks(input.scenario)) {
    if (stopped) {
      results.push(notJudged(id, why));
      continue;
    }
    const from = clock?.();
    const judged = id === 'goodput' ? yield* judgeGoodput(input) : CHECKS[id](input);
    const result = discountHarnessLag(judged, input.lag);
    results.push(from === undefined ? result : { ...result, judgedMs: roundMs(clock!() - from) });
    stopped = (yield) === true;
  }
  // The groupings the checks shared are not needed past judging: a day's run would keep them through the report.
  forgetAttemptsByRequest(input.rows);
  forgetAttemptsByScope(input.rows);
  forgetServedAnswers(input.outcomes);
  return results;
}

/**
 * A timing check's failure that the harness's own lag could explain is inconclusive, not a fail:
 * when the lag (the larger p99 of event-loop delay and send delay; their max for a check whose
 * violations are single late stamps, `timing.lagBound: 'max'`) exceeds the check's tolerance and
 * every violation is within that lag. A violation beyond the lag stays a fail.
 */
export function discountHarnessLag(result: CheckResult, lag: HarnessLag | undefined): CheckResult {
  if (result.verdict !== 'fail' || !result.timing || !lag) return result;
  const worst = result.timing.lagBound === 'max' ? longestStall(lag) : worstLag(lag);
  const { toleranceMs, worstMarginMs } = result.timing;
  if (worst.ms <= toleranceMs || worstMarginMs > worst.ms) return result;
  return {
    ...result,
    verdict: 'inconclusive',
    reason: `harness overloaded: ${worst.words}, above this check's ${Math.round(toleranceMs)} ms tolerance; the worst violation (${Math.round(worstMarginMs)} ms past it) is within the lag`,
  };
}

/** A fault of the scenario and the attempts it matched during the run. */
export interface FaultCoverage {
  id: string;
  kind: string;
  /** ms from the load's start. */
  at: number;
  for: number | null;
  optional: boolean;
  /** Attempts the fault was applied to. */
  matched: number;
}

/** A run's verdict and, unless it passed or failed cleanly, why it is inconclusive. */
export interface RunVerdict {
  verdict: 'pass' | 'fail' | 'inconclusive';
  /** One line per reason the run is inconclusive (empty when it passed or failed). */
  inconclusive: string[];
}

/**
 * A run fails when a check failed. Otherwise it is inconclusive when a check was, when a
 * (non-optional) fault matched no attempt (what it was there to test went untested), or when no
 * check had anything to judge; else it passes.
 */
export function runVerdict(results: readonly CheckResult[], faults: readonly FaultCoverage[] = []): RunVerdict {
  if (results.some((r) => r.verdict === 'fail')) return { verdict: 'fail', inconclusive: [] };
  const reasons = [
    ...faults
      .filter((f) => f.matched === 0 && !f.optional)
      .map(
        (f) =>
          `fault "${f.id}" (${f.kind} at ${formatMs(f.at)}${f.for !== null ? ` for ${formatMs(f.for)}` : ''} from the load's start) matched no attempt: what it tests went untested`,
      ),
    ...results.filter((r) => r.verdict === 'inconclusive').map((r) => `${r.id}: ${r.reason ?? r.figure}`),
  ];
  if (results.length > 0 && results.every((r) => r.verdict === 'skip')) reasons.push('no check had anything to judge');
  return reasons.length ? { verdict: 'inconclusive', inconclusive: reasons } : { verdict: 'pass', inconclusive: [] };
}

/** The run's verdict from its checks alone (see `runVerdict`). */
export function overallVerdict(results: readonly CheckResult[]): 'pass' | 'fail' | 'inconclusive' {
  return runVerdict(results).verdict;
}

/** A duration to a thousandth of a ms, never negative (a clock that went back). */
function roundMs(ms: number): number {
  return Math.max(0, Math.round(ms * 1000) / 1000);
}

function formatMs(v: number): string {
  return v % 1000 === 0 ? `${v / 1000} s` : `${v} ms`;
}
