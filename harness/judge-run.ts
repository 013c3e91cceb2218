import { createHash } from 'node:crypto';
import type { LedgerRow } from '../simulator/index.js';
import { runChecks, runVerdict, type FaultCoverage } from './checks/run-checks.js';
import { summary, type HarnessLag } from './checks/types.js';
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
 * the data the report is built from.
 */
export function judgeRun(e: RunEvidence): RunData {
  const lag = e.loopLag ? harnessLag(e.loopLag, e.outcomes) : undefined;
  const runQueue = e.routerWait && 'delay' in e.routerWait ? e.routerWait : undefined;
  const checks = runChecks({
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
  });
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
    outcomes: e.outcomes,
    rows: e.rows,
    checks,
    verdict: e.interrupted ? 'interrupted' : judged.verdict,
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
