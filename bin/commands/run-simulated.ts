import {
  buildReport,
  isFleet,
  judgeDeadline,
  runSimulatedScenario,
  type Report,
  type RunScenario as Scenario,
  type SimulatedRouterLauncher,
  type ClientOutcome,
} from '../../harness/index.js';
import type { LedgerRow } from '../../simulator/index.js';
import type { Io } from '../io.js';
import { formatDuration } from '../progress/format-progress.js';
import { judgingLine, silentMeter, type ProgressMeter } from '../progress/progress-meter.js';

/**
 * Why `--time simulated` cannot apply to this run, in one line (it then runs on the wall clock),
 * or undefined when it can: only a router in this process can share the simulated clock.
 */
export function wallClockNote(
  scenario: Scenario,
  choice: { routerCmd?: string; routerUrl?: string },
): string | undefined {
  const why = choice.routerCmd
    ? 'the router is a command, in a process of its own'
    : choice.routerUrl
      ? 'the router is already running, in a process of its own'
      : scenario.router.kind === 'command'
        ? "the scenario's router is a command, in a process of its own"
        : scenario.router.kind === 'url'
          ? "the scenario's router is a URL, in a process of its own"
          : isFleet(scenario.router)
            ? "the scenario's fleet runs each replica in a process of its own"
            : undefined;
  return why
    ? `note: --time simulated needs the router in this process (the reference router, or JavaScript through throttlelab/harness); ${why}: running on the wall clock`
    : undefined;
}

/** The issue of a load too long for the wall clock (it may still run in simulated time). */
export function tooLongForTheWallClock() {
  return {
    code: 'SCENARIO_OUT_OF_RANGE',
    path: ['load', 'duration'],
    message:
      'a run on the wall clock is bounded to 10 minutes of load; run it with --time simulated (the reference router, in process)',
  };
}

/** Runs one prepared scenario in simulated time, judged as on the wall clock, and says what it cost in wall time. */
export async function runInSimulatedTime(
  prepared: { scenario: Scenario; text: string; simulated: SimulatedRouterLauncher },
  file: string,
  seed: number,
  io: Io,
  meter: ProgressMeter = silentMeter,
): Promise<{ report: Report; logs: string[]; rows: LedgerRow[]; outcomes: ClientOutcome[] }> {
  const wallStart = performance.now();
  const giveUpJudging = judgeDeadline(io.stop, () => performance.now());
  const data = await runSimulatedScenario({
    scenario: prepared.scenario,
    scenarioText: prepared.text,
    scenarioFile: file,
    seed,
    launcher: prepared.simulated,
    env: io.env,
    signal: io.stop,
    // Wall time, not simulated: how long the user of a stopped run has waited for its report.
    ...(giveUpJudging ? { giveUpJudging } : {}),
    wallStartedAt: Date.now(),
    judgeClock: () => performance.now(),
    onJudging: judgingLine(io, meter),
    // Simulated time done of the load's, and the wall ETA from it.
    onProgress: (p) =>
      meter.update(
        p.doneMs / p.totalMs,
        `simulated ${formatDuration(p.doneMs)} of ${formatDuration(p.totalMs)}, ${p.attempts} attempts`,
      ),
  });
  meter.clear();
  const wallMs = performance.now() - wallStart;
  const n = data.outcomes.length;
  if (!io.quiet)
    io.err(
      `  simulated ${(data.simulated.simulatedMs / 1000).toFixed(1)} s in ${(wallMs / 1000).toFixed(2)} s wall: ${n} requests, ${data.rows.length} attempts, ${Math.round(n / (wallMs / 1000))} simulated requests per wall second`,
    );
  // The same evidence files as a wall-clock run: ledger.jsonl and outcomes.jsonl.
  return { report: buildReport(data), logs: [], rows: data.rows, outcomes: data.outcomes };
}
