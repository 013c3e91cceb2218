import { systemClock } from '../simulator/index.js';
import { judgeRunSliced } from './judge-run.js';
import type { RunData } from './run-data.js';
import type { ClientOutcome } from './load/client-outcome.js';
import type { LoadProgress } from './load/open-loop.js';
import { runLoad } from './fleet/fleet-load.js';
import { prepareFleet, type ExternalRedis } from './fleet/fleet-run.js';
import { createRequestPlanner } from './load/request-plan.js';
import type { RunScenario } from './scenario/schema.js';
import { createSimulator } from '../simulator/index.js';
import { recordLoopStalls, startLoopLagMonitor, startSimulatorServer, type LoopStalls } from '../simulator/index.js';
import type { RouterLauncher } from './launch/launcher.js';
import { recordRunQueueDelay, type RouterRunQueue } from './launch/record-run-queue-delay.js';
import { providerEnv, scenarioKeyValues } from './launch/provider-env.js';
import { judgeDeadline } from './judge-deadline.js';
import type { LoadJob, LoadWorkerSummary } from './load/load-group-keys.js';
import { loadJob } from './load/load-job.js';
import type { LoadGroupResult } from './load/open-load-group.js';

/** `run --load-workers`: the open loop dealt to worker processes that meet in a load group. */
export interface SplitLoad {
  segments: number;
  /** Runs the job on the group; `onStarted` is told the shared start time. */
  run(job: LoadJob, signal?: AbortSignal, onStarted?: (startAt: number) => void): Promise<LoadGroupResult>;
}

/** Options for `runScenario`. */
export interface RunOptions {
  scenario: RunScenario;
  scenarioText: string;
  scenarioFile: string;
  seed: number;
  launcher: RouterLauncher;
  /** Environment for `env:` keys; only `bin/` passes the real one. */
  env?: Readonly<Record<string, string | undefined>>;
  onProgress?: (p: LoadProgress) => void;
  /** Called as judging starts (the load is over), with the number of checks to judge. */
  onJudging?: (checks: number) => void;
  /** Fixed simulator port (for routers started beforehand); the scenario's otherwise. */
  simPort?: number;
  /** Stops the load early (the user pressed Ctrl-C); what was answered is still judged. */
  signal?: AbortSignal;
  /** Told the simulator's origin once it listens (e.g. for a live dashboard of its control API). */
  onSimulator?: (origin: string) => void;
  /** A fleet's Redis that is already running (`--redis-url`) instead of a redis-server of the run's own. */
  redis?: ExternalRedis;
  /** Send the load from worker processes instead of this one (an open loop at a single router). */
  splitLoad?: SplitLoad;
}

/**
 * The load's loop lag: this process's (it runs the simulator) or, when workers sent the load,
 * the worst of any process that timed a request.
 */
function worstLag(own: { p99Ms: number; maxMs: number }, workers: readonly LoadWorkerSummary[] = []) {
  return {
    p99Ms: Math.max(own.p99Ms, ...workers.map((w) => w.loopLag.p99Ms)),
    maxMs: Math.max(own.maxMs, ...workers.map((w) => w.loopLag.maxMs)),
  };
}

function requestsPerReplica(outcomes: readonly ClientOutcome[], replicas: number): number[] {
  const counts = new Array<number>(replicas).fill(0);
  for (const o of outcomes) if (o.replica !== undefined) counts[o.replica] = (counts[o.replica] ?? 0) + 1;
  return counts;
}

/**
 * Runs a scenario end to end: starts the simulator, starts (or reaches) the router with the
 * providers' URLs and keys, drives the load, then joins what the clients saw with the ledger and
 * evaluates the checks. Router and simulator are stopped whatever happens.
 */
export async function runScenario(o: RunOptions): Promise<RunData> {
  const { scenario } = o;
  if (!scenario.load) throw new Error('runScenario needs a scenario with a load section');
  const startedAt = systemClock.now();
  const giveUp = judgeDeadline(o.signal, () => performance.now());
  const sim = createSimulator(scenario, { seed: o.seed, env: o.env ?? {} });
  const server = await startSimulatorServer(sim, { port: o.simPort });
  o.onSimulator?.(server.origin);
  try {
    const endpoints = sim.endpoints(server.origin);
    const runId = `r${o.seed.toString(36)}`;
    const fleet = await prepareFleet(scenario, o.seed, runId, o.redis);
    let loadStartedAt = 0;
    let loadEndedAt = 0;
    let result: { outcomes: ClientOutcome[]; dropped: number };
    let router: Awaited<ReturnType<RouterLauncher>> | undefined;
    let loopLag = { p99Ms: 0, maxMs: 0 };
    let loopStalls: LoopStalls | undefined;
    let routerWait: RouterRunQueue | undefined;
    let loadWorkers: LoadWorkerSummary[] | undefined;
    try {
      const routerEnv = { ...providerEnv(endpoints, server.origin, scenarioKeyValues(scenario, o.env)), ...fleet.env };
      router = await o.launcher({
        endpoints,
        simOrigin: server.origin,
        seed: o.seed,
        env: routerEnv,
        signal: o.signal,
        ...(fleet.context ? { fleet: fleet.context } : {}),
      });
      const plan = createRequestPlanner(scenario.load, o.seed, runId, routerEnv);
      const target = fleet.target(router);
      // Fault times count from here: the router is ready, however long it took to start (or, for
      // load workers, from the start time they share).
      const startLoad = (at: number) => {
        loadStartedAt = at;
        sim.startFaultsAt(at);
        fleet.startFaults(at);
      };
      if (!o.splitLoad) startLoad(systemClock.now());
      const monitor = startLoopLagMonitor();
      const stalls = recordLoopStalls();
      // A router in this process waits out the loop's stalls, measured above; only another process has its own.
      // A fleet's replicas are timed apart: one starved replica explains only its own requests.
      const runQueue = router.pids ? recordRunQueueDelay(router.replicaPids?.() ?? [router.pids()]) : undefined;
      try {
        if (o.splitLoad) {
          const job = loadJob(scenario.load, {
            seed: o.seed,
            runId,
            env: routerEnv,
            baseUrl: target.baseUrl,
            segments: o.splitLoad.segments,
          });
          const split = await o.splitLoad.run(job, o.signal, startLoad);
          result = split;
          loadWorkers = split.workers;
        } else result = await runLoad(scenario.load, target, fleet.spread, plan, systemClock, o.onProgress, o.signal);
      } finally {
        loopLag = worstLag(monitor.stop(), loadWorkers);
        loopStalls = stalls.stop();
        routerWait = runQueue?.stop();
      }
      loadEndedAt = systemClock.now();
    } finally {
      await router?.stop();
      await fleet.stop();
    }
    // Attempts the router abandoned end at the simulator a moment later; give them that moment.
    for (let i = 0; i < 20 && sim.ledger.inFlight > 0; i++) await new Promise((r) => setTimeout(r, 50));
    const fleetSummary = fleet.context
      ? fleet.summary(requestsPerReplica(result.outcomes, router.replicas?.length ?? 1))
      : undefined;
    return await judgeRunSliced(
      {
        scenario,
        scenarioText: o.scenarioText,
        scenarioFile: o.scenarioFile,
        seed: o.seed,
        router: router.description,
        ...(router.redacted ? { routerRedacted: true } : {}),
        startedAt,
        endedAt: systemClock.now(),
        loadStartedAt,
        loadEndedAt,
        outcomes: result.outcomes,
        dropped: result.dropped,
        rows: [...sim.ledger.rowsIterator()],
        loopLag,
        ...(loopStalls ? { loopStalls } : {}),
        ...(routerWait ? { routerWait } : {}),
        interrupted: o.signal?.aborted === true,
        ...(giveUp ? { giveUp } : {}),
        judgeClock: () => performance.now(),
        ...(fleetSummary ? { fleet: fleetSummary } : {}),
        ...(loadWorkers ? { loadWorkers } : {}),
        ...(router.logs?.length ? { routerLogs: router.logs } : {}),
      },
      {
        now: () => performance.now(),
        ...(o.signal ? { stop: o.signal } : {}),
        ...(o.onJudging ? { onJudging: o.onJudging } : {}),
      },
    );
  } finally {
    await server.close();
  }
}
