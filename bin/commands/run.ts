import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
  buildReport,
  isFleet,
  launchCommand,
  launchFleet,
  launchUrl,
  loadRunScenarioFile,
  REFERENCE_CONFIG_VAR,
  redactCommand,
  renderVerdictTable,
  runScenario,
  secretValues,
  writeReportFolder,
  type LoadProgress,
  type Report,
  type LaunchContext,
  type RouterLauncher,
  type RunScenario as Scenario,
  type SimulatedRouterLauncher,
  WALL_CLOCK_MAX_LOAD_MS,
  type ClientOutcome,
  type SplitLoad,
} from '../../harness/index.js';
import type { LedgerRow } from '../../simulator/index.js';
import { quitHook, writeEvidenceFiles } from '../evidence-files.js';
import { planEvidence, type EvidenceMode } from '../evidence-plan.js';
import { keepLogs } from './keep-logs.js';
import { splitLoadOf } from './load-workers.js';
import { formatIssues, locateInYaml } from '../../simulator/index.js';
import { EXIT, interruptedCode, verdictCode, type ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import { assertWritableDir } from '../output-dir.js';
import { referenceConfig, simulatedReferenceLauncher } from '../reference-launcher.js';
import { runInSimulatedTime, tooLongForTheWallClock, wallClockNote } from './run-simulated.js';
import { launcherForReference } from '../reference-fleet.js';
import { createProgressMeter, judgingLine, type ProgressMeter } from '../progress/progress-meter.js';

/** Where the router under test comes from, overriding the scenario's `router` section. */
export interface RouterChoice {
  routerCmd?: string;
  routerUrl?: string;
  /** A fleet's store, overriding the scenario's (memory shows what a fleet without shared state does). */
  store?: 'memory' | 'redis';
  /** `simulated`: the reference router in process on a simulated clock (others fall back to the wall clock). */
  time?: 'wall' | 'simulated';
  /**
   * A Redis already running (a CI service container) that a fleet shares state through, instead of
   * a redis-server of the run's own; each run keys under a prefix of its own.
   */
  redisUrl?: string;
  /** Where a launched router serves its OpenAI-compatible API (default `/v1`). */
  routerBasePath?: string;
  /** What to poll until a launched router is up (default `<base path>/models`). */
  readyPath?: string;
}

type CommandSpec = Parameters<typeof launchCommand>[1];

/** A router command, run once, or once per replica of a fleet (each with its own log file). */
function commandLauncher(spec: CommandSpec, baseEnv: Io['env']): RouterLauncher {
  return (ctx: LaunchContext) => {
    const fleet = ctx.fleet;
    // One router's output goes to router.log, copied into the report folder (secrets redacted).
    if (!fleet)
      return mkdtemp(join(tmpdir(), 'throttlelab-router-')).then((dir) =>
        launchCommand(ctx, { ...spec, logFile: join(dir, 'router.log') }, baseEnv),
      );
    return launchFleet(
      ctx,
      fleet.replicas,
      (i, c) => launchCommand(c, { ...spec, logFile: join(fleet.logDir, `replica-${i}.log`) }, baseEnv),
      `${fleet.replicas} replicas of command: ${redactCommand(spec.command, secretValues({ ...baseEnv, ...ctx.env })).shown}${fleet.store === 'redis' ? ' (THROTTLELAB_REDIS_URL given)' : ''}`,
    );
  };
}

/** Applies `--store` and `--router-url` to a scenario's fleet, saying what changes. */
export function fleetChoice(scenario: Scenario, choice: RouterChoice, note: (line: string) => void): Scenario {
  let s = scenario;
  if (choice.store && s.router.kind !== 'url') s = { ...s, router: { ...s.router, store: choice.store } };
  const dropped = (why: string) => {
    if (s.redisFaults.length > 0)
      note(`note: redis faults ${s.redisFaults.map((f) => f.id).join(', ')} not played: ${why}`);
    s = { ...s, redisFaults: [] };
  };
  if (choice.routerUrl && isFleet(s.router)) {
    note(
      `note: --router-url names one running router: the scenario's fleet (${'replicas' in s.router ? s.router.replicas : 1} replicas) is not started; point it at your load balancer to judge a fleet`,
    );
    dropped('no Redis is started for a router that is already running');
  } else if (s.router.kind !== 'url' && s.router.store === 'memory') dropped('the replicas keep their state in memory');
  else if (choice.redisUrl && isFleet(s.router))
    dropped('--redis-url names a Redis throttlelab does not own, so it cannot stop, restart or pause it');
  if (choice.redisUrl && !(s.router.kind !== 'url' && isFleet(s.router) && s.router.store === 'redis'))
    note("note: --redis-url not used: this scenario's router keeps no state in Redis");
  return s;
}

/** The scenario's settings for the reference router, for a router command that takes them (THROTTLELAB_REFERENCE_CONFIG). */
function referenceTuning(scenario: Scenario): Record<string, string> {
  const r = scenario.router;
  return r.kind === 'reference' && Object.keys(r.config).length > 0
    ? { [REFERENCE_CONFIG_VAR]: JSON.stringify(r.config) }
    : {};
}

/** Options of `throttlelab run`. */
export interface RunCommandOptions extends RouterChoice {
  scenario: string;
  seed?: number;
  out?: string;
  simPort?: number;
  /** Serve the live dashboard on loopback while the run goes. */
  dashboard?: boolean;
  dashboardPort?: number;
  /** `--evidence`: which raw evidence to keep beside the report (default full). */
  evidence?: EvidenceMode;
  /** `--load-workers N`: send the open loop from N worker processes (segments). */
  loadWorkers?: number;
  /** How many of them this command starts (default all); the rest join with `load-worker --join`. */
  localLoadWorkers?: number;
}

/** A scenario ready to run: its router launcher (and, in simulated time, its in-process one). */
export interface Prepared {
  scenario: Scenario;
  text: string;
  launcher: RouterLauncher;
  simulated?: SimulatedRouterLauncher;
  /** `--redis-url`: the fleet's Redis, already running. */
  redisUrl?: string;
  /** `--load-workers`: the load sent from worker processes. */
  splitLoad?: SplitLoad;
}

/** Prepares a scenario for a run: loaded, with a load section, its router choice valid. */
export async function prepareRun(file: string, choice: RouterChoice, io: Io): Promise<Prepared | undefined> {
  const prepared = await prepareRouter(file, choice, io);
  return prepared && choice.redisUrl ? { ...prepared, redisUrl: choice.redisUrl } : prepared;
}

async function prepareRouter(file: string, choice: RouterChoice, io: Io): Promise<Prepared | undefined> {
  const loaded = await loadRunScenarioFile(file, io.env);
  if (!loaded.ok) {
    io.err(loaded.report);
    return undefined;
  }
  const { text } = loaded;
  const scenario = fleetChoice(loaded.scenario, choice, io.err);
  if (!scenario.load) {
    io.err(
      formatIssues(
        file,
        locateInYaml(text, [
          {
            code: 'SCENARIO_MISSING_FIELD',
            path: [],
            message: 'throttlelab run needs a "load" section (mode, duration, rate or connections, requests)',
          },
        ]),
      ),
    );
    return undefined;
  }
  const wall = choice.time === 'simulated' ? wallClockNote(scenario, choice) : undefined;
  if (wall) io.err(wall);
  if ((choice.time !== 'simulated' || wall) && scenario.load.duration > WALL_CLOCK_MAX_LOAD_MS) {
    io.err(formatIssues(file, locateInYaml(text, [tooLongForTheWallClock()])));
    return undefined;
  }
  const basePath = choice.routerBasePath?.replace(/\/+$/, '');
  const paths = <T extends { readyPath: string; basePath?: string }>(r: T): T => ({
    ...r,
    ...(basePath !== undefined ? { basePath } : {}),
    ...(choice.readyPath !== undefined
      ? { readyPath: choice.readyPath }
      : basePath !== undefined
        ? { readyPath: `${basePath}/models` }
        : {}),
  });
  if (choice.routerCmd)
    return {
      scenario,
      text,
      launcher: commandLauncher(
        paths({
          command: choice.routerCmd,
          env: referenceTuning(scenario),
          readyPath: '/v1/models',
          startTimeout: 30_000,
        }),
        io.env,
      ),
    };
  if (choice.routerUrl) {
    const url = choice.routerUrl;
    return { scenario: { ...scenario, router: { kind: 'url', url } }, text, launcher: () => launchUrl(url) };
  }
  const r = scenario.router;
  if (r.kind === 'command') return { scenario, text, launcher: commandLauncher(paths(r), io.env) };
  if (r.kind === 'url') return { scenario, text, launcher: () => launchUrl(r.url) };
  const checked = referenceConfig(scenario, {});
  if (!checked.ok) {
    io.err(formatIssues(file, locateInYaml(text, checked.issues)));
    return undefined;
  }
  return {
    scenario,
    text,
    launcher: launcherForReference(scenario, io.env),
    ...(choice.time === 'simulated' && !wall ? { simulated: simulatedReferenceLauncher(scenario) } : {}),
  };
}

/** A progress line: elapsed time, request rate and outcomes so far. */
export function progressLine(p: LoadProgress, totalMs: number): string {
  const rate = p.elapsedMs > 0 ? (p.done / p.elapsedMs) * 1000 : 0;
  const outcomes = Object.entries(p.byStatus)
    .sort()
    .map(([k, v]) => `${k}: ${v}`)
    .join('  ');
  return `  ${(Math.min(p.elapsedMs, totalMs) / 1000).toFixed(0).padStart(3)} s / ${totalMs / 1000} s  ${rate.toFixed(0).padStart(5)} req/s  in flight ${p.inFlight}  ${outcomes}${p.dropped ? `  not judged: ${p.dropped}` : ''}`;
}

/** Runs one prepared scenario, showing progress on `meter` (its own by default); returns its report. */
export async function executeRun(
  prepared: Prepared,
  file: string,
  seed: number,
  io: Io,
  simPort?: number,
  onSimulator?: (origin: string) => void,
  meter: ProgressMeter = createProgressMeter(io),
): Promise<{ report: Report; logs: string[]; rows?: LedgerRow[]; outcomes?: ClientOutcome[] }> {
  if (prepared.simulated)
    return runInSimulatedTime({ ...prepared, simulated: prepared.simulated }, file, seed, io, meter);
  const redisUrl = prepared.redisUrl;
  const total = prepared.scenario.load!.duration;
  const data = await runScenario({
    scenario: prepared.scenario,
    scenarioText: prepared.text,
    scenarioFile: file,
    seed,
    launcher: prepared.launcher,
    env: io.env,
    simPort,
    onSimulator,
    signal: io.stop,
    ...(prepared.splitLoad ? { splitLoad: prepared.splitLoad } : {}),
    // A tag of the run's own in its key prefix: two runs of one seed on one Redis never share keys.
    ...(redisUrl ? { redis: { url: redisUrl, tag: io.randomSeed().toString(36) } } : {}),
    onProgress: (p) => meter.update(Math.max(0, p.elapsedMs) / total, progressLine(p, total).trim()),
    onJudging: judgingLine(io, meter),
  });
  meter.clear();
  return { report: buildReport(data), logs: data.routerLogs ?? [], rows: data.rows, outcomes: data.outcomes };
}

/** Runs a scenario against a router under load, judges it, writes the reports; exit 0 pass, 1 fail, 3 inconclusive, 2 bad input. */
export async function run(options: RunCommandOptions, io: Io): Promise<ExitCode> {
  if (!options.loadWorkers) return runPrepared(options, await prepareRun(options.scenario, options, io), io);
  // With load workers, --redis-url is where they meet, not a fleet's store (a fleet is refused).
  const prepared = await prepareRun(options.scenario, { ...options, redisUrl: undefined }, io);
  if (!prepared) return EXIT.BAD_INPUT;
  const split = await splitLoadOf(prepared, options, io);
  try {
    return await runPrepared(options, { ...prepared, splitLoad: split }, io);
  } finally {
    await split.close();
  }
}

async function runPrepared(options: RunCommandOptions, prepared: Prepared | undefined, io: Io): Promise<ExitCode> {
  if (!prepared) return EXIT.BAD_INPUT;
  await assertWritableDir(options.out ?? 'reports');
  const seed = options.seed ?? prepared.scenario.seed ?? io.randomSeed();
  io.out(`throttlelab run: scenario "${prepared.scenario.name}" (seed ${seed})`);
  let simOrigin: string | undefined;
  const dashboard = options.dashboard
    ? await (
        await import('../dashboard/serve-dashboard.js')
      ).startDashboard({ target: () => simOrigin, port: options.dashboardPort })
    : undefined;
  if (dashboard) io.err(`dashboard: ${dashboard.origin}/ (live while the run goes)`);
  let ran: Awaited<ReturnType<typeof executeRun>>;
  try {
    ran = await executeRun(prepared, options.scenario, seed, io, options.simPort, (origin) => (simOrigin = origin));
  } finally {
    await dashboard?.close();
  }
  const { logs, rows, outcomes } = ran;
  const plan = rows && outcomes ? planEvidence(options.evidence ?? 'full', ran.report, { rows, outcomes }) : undefined;
  const report = plan ? { ...ran.report, evidence: plan.kept } : ran.report;
  io.out(renderVerdictTable(report));
  const dir = options.out ?? join('reports', `${report.scenario.name}-${report.startedAt.replace(/[:.]/g, '-')}`);
  const paths = await writeReportFolder(dir, [report]);
  const kept = await keepLogs(logs, dir);
  const evidence =
    plan && plan.kept.mode !== 'none'
      ? await writeEvidenceFiles(dir, plan, quitHook(io), plan.kept.files[0]!.endsWith('.gz'))
      : [];
  io.out(
    `report: ${paths.html} (also ${['report.json', 'junit.xml', 'summary.md', ...[...kept, ...evidence].map((f) => basename(f))].join(', ')} in ${dir})`,
  );
  if (report.verdict === 'interrupted') return interruptedCode(io.stop);
  return verdictCode([report.verdict]);
}
