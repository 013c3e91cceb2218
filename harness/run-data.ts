import type { LedgerRow, LoopStalls } from '../simulator/index.js';
import type { FaultCoverage } from './checks/run-checks.js';
import type { CheckResult, HarnessLag } from './checks/types.js';
import type { FleetSummary } from './fleet/fleet-run.js';
import type { RouterRunQueue } from './launch/record-run-queue-delay.js';
import type { RouterRunQueueSummary } from './launch/run-queue-delay.js';
import type { ClientOutcome } from './load/client-outcome.js';
import type { LoadWorkerSummary } from './load/load-group-keys.js';
import type { CheckId, RunScenario } from './scenario/schema.js';

// What a run gathers and what judging it makes of that, apart from both the orchestrators that
// gather it (wall clock, simulated) and the judge, so neither has to import the other for a type.

/** What a run gathered, on the wall clock or in simulated time, before anything is judged. */
export interface RunEvidence {
  scenario: RunScenario;
  scenarioText: string;
  scenarioFile: string;
  seed: number;
  router: string;
  /** Something secret was removed from `router` (the command that started it). */
  routerRedacted?: boolean;
  startedAt: number;
  endedAt: number;
  /** Fault times and the checks' times count from here. */
  loadStartedAt: number;
  loadEndedAt: number;
  outcomes: ClientOutcome[];
  dropped: number;
  rows: LedgerRow[];
  /** The event loop's own delay during the load; absent in simulated time, where there is none. */
  loopLag?: { p99Ms: number; maxMs: number };
  /** When the event loop ran behind during the load, as a timeline (wall clock only). */
  loopStalls?: LoopStalls;
  /** How long the router's processes waited for a CPU during the load (wall clock, a launched router only). */
  routerWait?: RouterRunQueue;
  /** The user stopped the load before its end: judged, but never a pass. */
  interrupted: boolean;
  /** A fleet run: its replicas, store, spread and Redis faults. */
  fleet?: FleetSummary;
  /** `run --load-workers`: each load worker's segment, host, counts and own loop lag. */
  loadWorkers?: LoadWorkerSummary[];
  /** Files holding the router's output (a fleet's: one per replica). */
  routerLogs?: string[];
  /** True once judging must end soon (see `judgeDeadline`): long replays stop short. */
  giveUp?: () => boolean;
  /** A monotonic wall ms clock that times each check's judging (see `runChecks`). */
  judgeClock?: () => number;
}

/** A run stopped while it was judged: which checks were judged, and which were not (INCONCLUSIVE, saying so). */
export interface JudgingStopped {
  judged: CheckId[];
  notJudged: CheckId[];
}

/** Everything a run produced: the evidence and the verdicts, before any rendering. */
export interface RunData extends Omit<
  RunEvidence,
  'scenarioText' | 'loopLag' | 'loopStalls' | 'routerWait' | 'giveUp' | 'judgeClock'
> {
  scenarioSha256: string;
  checks: CheckResult[];
  /**
   * `inconclusive`: nothing failed, but something could not be judged (a fault that matched no
   * attempt, a check the harness's own lag or the sample size left undecided; `inconclusive` says
   * what). `interrupted`: the user stopped the run, so its checks judged only part of it.
   */
  verdict: 'pass' | 'fail' | 'inconclusive' | 'interrupted';
  /** Why the run is inconclusive, one line each. */
  inconclusive?: string[];
  /** The user stopped the run after its load, while it was judged: the checks judged and those not. */
  judgingStopped?: JudgingStopped;
  /** Every scenario fault and the attempts it matched (times from the load's start). */
  faults?: FaultCoverage[];
  /** The harness's own lag during the load. */
  lag?: HarnessLag;
  /** How long the router's process waited for a CPU during the load, or why that was not measured. */
  routerRunQueue?: RouterRunQueueSummary | { unavailable: string };
}
