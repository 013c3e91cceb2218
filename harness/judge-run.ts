import { createHash } from 'node:crypto';
import type { LedgerRow } from '../simulator/index.js';
import {
  judgeChecks,
  runChecks,
  runVerdict,
  wantedChecks,
  type FaultCoverage,
  type JudgeInput,
} from './checks/run-checks.js';
import { isNotJudged } from './checks/not-judged.js';
import { driveSliced } from './checks/sliced.js';
import { summary, type CheckResult, type HarnessLag } from './checks/types.js';
import type { ClientOutcome } from './load/client-outcome.js';
import type { RunData, RunEvidence } from './run-data.js';
import type { RunScenario } from './scenario/schema.js';
import type { RunQueueSummary } from './launch/run-queue-delay.js';
import { replicaSampledAt, replicaWait } from './launch/replica-wait.js';

const round1 = (v: number) => Math.round(v * 10) / 10;

/** Each scenario fault with the number of attempts the ledger says it was applied to. */
export function faultCoverage(scenario: RunScenario, rows: readonly LedgerRow[]): FaultCoverage[] {
  const matched = new Map<string, number>();
  for (const r of rows) for (const id of r.faults) matched.set(id, (matched.get(id) ?? 0) + 1);
  return scenario.faults.map((f) => ({
    id: f.id,
    kind: f.kind,
    at: f.at,
    for: f.for ?? null,
    optional: f.optional === true,
    matched: matched.get(f.id) ?? 0,
  }));
}

/**
 * The judging tail every run shares, whatever its clock: the harness's lag, the checks, each
 * fault's coverage, the run's verdict (a failed check fails it; an unmatched fault, an
 * inconclusive check or nothing to judge makes it inconclusive; a stopped run is interrupted) and
 * the data the report is built from. All at once: see `judgeRunSliced` for a judge that a signal
 * can stop.
 */
export function judgeRun(e: RunEvidence): RunData {
  const input = judgeInput(e);
  return runData(e, input.lag, runChecks(input), false);
}

/** Options for `judgeRunSliced`. */
export interface SlicedJudging {
  /** Aborts when the user stops the process: judging then ends within about a second (see `judgeDeadline`). */
  stop?: AbortSignal;
  /** A monotonic wall ms clock: how long a slice of judging ran before the event loop gets a turn. */
  now: () => number;
  /** Called as judging starts, with the number of checks to judge. */
  onJudging?: (checks: number) => void;
}

/**
 * `judgeRun` in slices that give the event loop a turn (see `driveSliced`): a signal during
 * judging is seen at once, a second one can quit the process, and once `giveUp` says so the
 * check under way ends short and the rest are not judged. A run stopped while it was judged is
 * interrupted, and its report lists the checks judged and those not (`judgingStopped`). Without
 * a stop, the same data as `judgeRun`.
 */
export async function judgeRunSliced(e: RunEvidence, o: SlicedJudging): Promise<RunData> {
  const input = judgeInput(e);
  o.onJudging?.(wantedChecks(e.scenario).length);
  const why = `the run was stopped (${String(o.stop?.reason ?? 'signal')}) while it was judged`;
  const checks = await driveSliced(judgeChecks(input, why), {
    now: o.now,
    ...(e.giveUp ? { giveUp: e.giveUp } : {}),
  });
  return runData(e, input.lag, checks, !e.interrupted && o.stop?.aborted === true);
}

/** What the checks see of a run's evidence. */
function judgeInput(e: RunEvidence): JudgeInput {
  const lag = e.loopLag ? harnessLag(e.loopLag, e.outcomes) : undefined;
  const runQueue = e.routerWait && 'delay' in e.routerWait ? e.routerWait : undefined;
  return {
    outcomes: e.outcomes,
    rows: e.rows,
    scenario: e.scenario,
    seed: e.seed,
    startedAt: e.loadStartedAt,
    ...(lag ? { lag } : {}),
    ...(e.loopStalls ? { loopBehindMs: (from: number, to: number) => e.loopStalls!.behindMs(from, to) } : {}),
    ...(runQueue ? { routerWaitMs: replicaWait(runQueue), routerSampledAt: replicaSampledAt(runQueue) } : {}),
    ...(e.giveUp ? { giveUp: e.giveUp } : {}),
    ...(e.judgeClock ? { judgeClock: e.judgeClock } : {}),
  };
}

/** The run's data from its evidence and its checks; `stoppedJudging`: a stop came while it was judged. */
function runData(e: RunEvidence, lag: HarnessLag | undefined, checks: CheckResult[], stoppedJudging: boolean): RunData {
  const runQueue = e.routerWait && 'delay' in e.routerWait ? e.routerWait : undefined;
  const faults = faultCoverage(e.scenario, e.rows);
  const judged = runVerdict(checks, faults);
  return {
    scenario: e.scenario,
    scenarioFile: e.scenarioFile,
    scenarioSha256: createHash('sha256').update(e.scenarioText).digest('hex'),
    seed: e.seed,
    router: e.router,
    ...(e.routerRedacted ? { routerRedacted: true } : {}),
    startedAt: e.startedAt,
    endedAt: e.endedAt,
    loadStartedAt: e.loadStartedAt,
    loadEndedAt: e.loadEndedAt,
    dropped: e.dropped,
    interrupted: e.interrupted,
    ...(stoppedJudging
      ? {
          judgingStopped: {
            judged: checks.filter((c) => !isNotJudged(c)).map((c) => c.id),
            notJudged: checks.filter(isNotJudged).map((c) => c.id),
          },
        }
      : {}),
    outcomes: e.outcomes,
    rows: e.rows,
    checks,
    verdict: e.interrupted || stoppedJudging ? 'interrupted' : judged.verdict,
    inconclusive: judged.inconclusive,
    faults,
    ...(lag ? { lag } : {}),
    ...(runQueue
      ? {
          routerRunQueue: {
            ...roundSummary(runQueue.delay.summary()),
            ...(runQueue.replicas.length > 1
              ? { replicas: runQueue.replicas.map((d) => roundSummary(d.summary())) }
              : {}),
          },
        }
      : {}),
    ...(e.routerWait && 'unavailable' in e.routerWait
      ? { routerRunQueue: { unavailable: e.routerWait.unavailable } }
      : {}),
    ...(e.fleet ? { fleet: e.fleet } : {}),
    ...(e.loadWorkers ? { loadWorkers: e.loadWorkers } : {}),
    ...(e.routerLogs?.length ? { routerLogs: e.routerLogs } : {}),
  };
}

/** The router's run-queue figures, to a tenth of a ms. */
function roundSummary(s: RunQueueSummary): RunQueueSummary {
  return { ...s, totalMs: round1(s.totalMs), worstWindowMs: round1(s.worstWindowMs) };
}

/** The event loop's delay and how late requests went out against their schedule. */
function harnessLag(loop: { p99Ms: number; maxMs: number }, outcomes: readonly ClientOutcome[]): HarnessLag {
  const send = summary(outcomes.map((x) => Math.max(0, x.sentAt - x.scheduledAt)));
  return {
    loopP99Ms: round1(loop.p99Ms),
    loopMaxMs: round1(loop.maxMs),
    sendP99Ms: round1(send.p99 ?? 0),
    sendMaxMs: round1(send.max ?? 0),
  };
}
