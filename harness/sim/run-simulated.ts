import { createSimulator, type ProviderEndpoint, type Simulator } from '../../simulator/index.js';
import { judgeRun, judgeRunSliced } from '../judge-run.js';
import { providerEnv, scenarioKeyValues } from '../launch/provider-env.js';
import { createRequestPlanner } from '../load/request-plan.js';
import type { RunData, RunEvidence } from '../run-data.js';
import type { RunScenario } from '../scenario/schema.js';
import { drive } from './drive.js';
import { createSimClock, SIMULATED_EPOCH, type SimClock } from './sim-clock.js';
import { runSimulatedLoad, type DirectHandler, type FetchHandler } from './sim-load.js';

/** Where the simulated providers live in a simulated run (never resolved: no socket is opened). */
export const SIM_ORIGIN = 'http://simulator.simulated';

/** What a router needs to run in simulated time, in process, over the simulated providers. */
export interface SimulatedLaunchContext {
  /** The simulator: a router calls `sim.handle` through an in-process transport. */
  sim: Simulator;
  /** The one clock of the run; the router must take all its time from it. */
  clock: SimClock;
  endpoints: ProviderEndpoint[];
  /** `THROTTLELAB_*` variables naming every provider's base URL, vendor, models and keys. */
  env: Record<string, string>;
  seed: number;
}

/** A router started in process for a simulated run. */
export interface SimulatedRouter {
  handler: FetchHandler;
  /** The chat endpoint without Request/Response objects, when the router offers one (used instead of `handler`). */
  direct?: DirectHandler;
  description: string;
  stop(): Promise<void>;
}

/** Starts a router in process, on the run's clock; called before simulated time starts, so it may load what it needs. */
export type SimulatedRouterLauncher = (ctx: SimulatedLaunchContext) => SimulatedRouter | Promise<SimulatedRouter>;

/** Options for `runSimulatedScenario`. */
export interface SimulatedRunOptions {
  scenario: RunScenario;
  scenarioText: string;
  scenarioFile: string;
  seed: number;
  launcher: SimulatedRouterLauncher;
  /** Environment for `env:` keys; only `bin/` passes the real one. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Epoch ms the simulated world starts at (a UTC midnight by default). */
  startAt?: number;
  /** The run's own wall-clock timestamp for the report; everything else is simulated time. */
  wallStartedAt?: number;
  /** The run's clock (a heap scheduler at `startAt` by default; fake timers for code under test). */
  clock?: SimClock;
  /** Stops the load early (the user pressed Ctrl-C); what was answered is still judged, never as a pass. */
  signal?: AbortSignal;
  /**
   * True once judging must end soon (see `judgeDeadline`, on the wall clock, which only the caller
   * may read): long replays stop short. Without it judging is complete however long it takes.
   */
  giveUpJudging?: () => boolean;
  /**
   * The wall clock that times each check's judging (simulated time does not pass while judging).
   * Given, judging runs in slices that let signals in (see `judgeRunSliced`).
   */
  judgeClock?: () => number;
  /** Called as judging starts (the load is over), with the number of checks to judge. */
  onJudging?: (checks: number) => void;
  /** Called every few hundred simulated events with how far the load is (simulated ms), for progress. */
  onProgress?: (p: SimulatedProgress) => void;
}

/** How far a simulated run's load is, in simulated time. */
export interface SimulatedProgress {
  doneMs: number;
  totalMs: number;
  /** Attempts the providers have seen so far. */
  attempts: number;
}

/** A simulated run's data, and what it cost. */
export interface SimulatedRunData extends RunData {
  simulated: { startAt: number; simulatedMs: number; events: number };
}

/**
 * Runs a scenario in simulated time: simulator, router, load and checks on one discrete-event
 * clock, in one process, with no socket and no sleep. The same seed gives the same ledger and the
 * same outcomes, event for event; only `startedAt` (the run's own timestamp) differs between runs.
 */
export async function runSimulatedScenario(o: SimulatedRunOptions): Promise<SimulatedRunData> {
  const { scenario } = o;
  const load = scenario.load;
  if (!load) throw new Error('runSimulatedScenario needs a scenario with a load section');
  const clock = o.clock ?? createSimClock(o.startAt ?? SIMULATED_EPOCH);
  const simStart = clock.now();
  const sim = createSimulator(scenario, { seed: o.seed, env: o.env ?? {}, clock });
  const endpoints = sim.endpoints(SIM_ORIGIN);
  const env = providerEnv(endpoints, SIM_ORIGIN, scenarioKeyValues(scenario, o.env));
  const runId = `r${o.seed.toString(36)}`;
  // Started before time runs: starting may load modules (real I/O), which must not race simulated time.
  const router = await o.launcher({ sim, clock, endpoints, env, seed: o.seed });
  let loadFrom: number | undefined;
  const progress = o.onProgress
    ? () =>
        loadFrom !== undefined &&
        o.onProgress!({
          doneMs: Math.min(load.duration, clock.now() - loadFrom),
          totalMs: load.duration,
          attempts: sim.ledger.size,
        })
    : undefined;
  const work = async () => {
    try {
      const plan = createRequestPlanner(load, o.seed, runId, env);
      // Fault times count from here, as on the wall clock.
      const loadStartedAt = clock.now();
      loadFrom = loadStartedAt;
      sim.startFaultsAt(loadStartedAt);
      const result = await runSimulatedLoad(load, router.handler, plan, clock, router.direct, o.signal);
      const loadEndedAt = clock.now();
      // Attempts the router abandoned end at the simulator a moment later; give them that moment.
      for (let i = 0; i < 20 && sim.ledger.inFlight > 0; i++) await clock.sleep(50);
      return { result, loadStartedAt, loadEndedAt };
    } finally {
      await router.stop();
    }
  };
  const { result, loadStartedAt, loadEndedAt } = await drive(clock, work(), undefined, progress);
  const simulatedMs = clock.now() - simStart;
  const startedAt = o.wallStartedAt ?? simStart;
  const evidence: RunEvidence = {
    scenario,
    scenarioText: o.scenarioText,
    scenarioFile: o.scenarioFile,
    seed: o.seed,
    router: router.description,
    startedAt,
    endedAt: startedAt + simulatedMs,
    loadStartedAt,
    loadEndedAt,
    outcomes: result.outcomes,
    dropped: result.dropped,
    // Views over the ledger's columns, not an object of every field per attempt: a day's million rows fit.
    rows: sim.ledger.rowViews(),
    interrupted: o.signal?.aborted === true,
    ...(o.giveUpJudging ? { giveUp: o.giveUpJudging } : {}),
    ...(o.judgeClock ? { judgeClock: o.judgeClock } : {}),
  };
  const judged = o.judgeClock
    ? await judgeRunSliced(evidence, {
        now: o.judgeClock,
        ...(o.signal ? { stop: o.signal } : {}),
        ...(o.onJudging ? { onJudging: o.onJudging } : {}),
      })
    : judgeRun(evidence);
  return { ...judged, simulated: { startAt: simStart, simulatedMs, events: clock.fired() } };
}
