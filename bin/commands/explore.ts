import { availableParallelism } from 'node:os';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import {
  formatSeedRange,
  parseSeedRange,
  renderExploreHtml,
  renderExploreText,
  TOOL_VERSION,
  type ExploreSummary,
  type SeedRun,
} from '../../harness/index.js';
import { CliError } from '../errors.js';
import type { ExploreRouter } from '../explore-job.js';
import { shown, sweep, type PrepareScenario } from '../explore-sweep.js';
import { EXIT, interruptedCode, verdictCode, type ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import { assertWritableDir } from '../output-dir.js';
import { prepareRun } from './run.js';

/** A failing (scenario, seed) of a sweep, as `onFailure` gets it. */
export interface ExploreFailure {
  file: string;
  seed: number;
  scenario: string;
  /** The ids of the checks that failed. */
  checks: string[];
}

/** Options of `throttlelab explore`. */
export interface ExploreOptions {
  /** Scenario files or folders of them (their `*.yaml`). */
  paths: string[];
  /** Seeds as `1..100` or `1,5,9` (default 1..100; 1..5 for a router command on the wall clock). */
  seeds?: string;
  workers?: number;
  /** `reference` (the default) or the path of a module router judged in process. */
  router?: string;
  /** A router command, started for each run on the wall clock. */
  routerCmd?: string;
  /** A job's time limit; by default 2 minutes in simulated time, the load's duration plus 2 minutes on the wall clock. */
  jobTimeoutMs?: number;
  json?: string;
  html?: string;
  out?: string;
  /** Rewrites each scenario for its seed before the job runs (random weather). */
  prepare?: PrepareScenario;
  /** Flags a replay line needs to prepare the scenario again (`--weather random`). */
  replayFlags?: string;
  /** `--evidence`: what explore.json keeps beside the tallies (default full). */
  evidence?: SweepEvidence;
  /** Called for each failing run after the sweep, in file and seed order (shrinking, saving); its line is printed. */
  onFailure?: (failure: ExploreFailure) => Promise<string | undefined>;
}

/** Seeds a router command runs on the wall clock unless `--seeds` names others: each run takes its load's real time. */
export const WALL_CLOCK_SEEDS = 5;

/** The `*.yaml` files a list of files and folders names, folders' files sorted, each once. */
export async function scenarioFiles(paths: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const p of paths) {
    const s = await stat(p).catch(() => undefined);
    if (!s)
      throw new CliError('CLI_NO_SCENARIOS', `${p}: no such file or folder. Name scenario files or folders of them.`);
    if (!s.isDirectory()) files.push(p);
    else
      files.push(
        ...(await readdir(p))
          .filter((f) => f.endsWith('.yaml'))
          .sort()
          .map((f) => join(p, f)),
      );
  }
  const unique = [...new Set(files)];
  if (unique.length === 0) throw new CliError('CLI_NO_SCENARIOS', `${paths.join(', ')}: no scenario files (*.yaml).`);
  return unique;
}

function routerOf(o: ExploreOptions): ExploreRouter {
  if (o.routerCmd && o.router && o.router !== 'reference')
    throw new CliError('CLI_USAGE', '--router and --router-cmd: name one router, not two.');
  if (o.routerCmd) return { kind: 'command', command: o.routerCmd };
  if (!o.router || o.router === 'reference') return { kind: 'reference', time: 'simulated' };
  return { kind: 'module', path: resolve(o.router) };
}

/** How a sweep names its router, in its output and its files. */
export function routerLabel(r: ExploreRouter): string {
  return r.kind === 'reference'
    ? `the reference router (${r.time === 'simulated' ? 'in process, simulated time' : 'wall clock'})`
    : r.kind === 'module'
      ? `module ${shown(r.path)} (in process, simulated time)`
      : `command ${r.command} (wall clock)`;
}

/** Writes a sweep's JSON and HTML; returns the paths written. */
export async function writeSweep(
  summary: ExploreSummary,
  runs: readonly SeedRun[],
  router: string,
  to: { json: string; html: string },
  evidence: SweepEvidence = 'full',
): Promise<string[]> {
  const generatedAt = new Date().toISOString();
  const json = {
    tool: `throttlelab ${TOOL_VERSION}`,
    router,
    generatedAt,
    evidence,
    ...summary,
    ...(evidence === 'none' ? {} : { runs: keptRuns(runs, evidence) }),
  };
  for (const f of [to.json, to.html]) await mkdir(dirname(f), { recursive: true });
  await writeFile(to.json, `${JSON.stringify(json, null, 2)}\n`);
  await writeFile(to.html, renderExploreHtml(summary, { router, generatedAt }));
  return [to.json, to.html];
}

/**
 * `--evidence` of a sweep: what explore.json keeps beside the tallies. `full`: every run with its
 * checks; `summary`: the runs that did not pass (failed, broke or inconclusive), whose replay lines
 * the tallies cite; `none`: the tallies alone.
 */
export type SweepEvidence = 'full' | 'summary' | 'none';

/** The runs explore.json keeps for `evidence`, as it writes them. */
export function keptRuns(runs: readonly SeedRun[], evidence: Exclude<SweepEvidence, 'none'>) {
  return runs
    .filter((r) => evidence === 'full' || !r.ok || r.verdict !== 'pass')
    .map((r) =>
      r.ok
        ? { file: r.file, seed: r.seed, verdict: r.verdict, wallMs: Math.round(r.wallMs), checks: r.checks }
        : { file: r.file, seed: r.seed, error: r.error, wallMs: Math.round(r.wallMs) },
    );
}

/**
 * Runs scenarios (the conformance pack by default) over many seeds on every core and prints, per
 * scenario and check, the verdict counts with a 95 % interval, then each failing seed with the line
 * that replays it. Exit 1 if any run failed or broke, 3 if any was inconclusive, else 0.
 */
export async function explore(o: ExploreOptions, io: Io): Promise<ExitCode> {
  const router = routerOf(o);
  const files = await scenarioFiles(o.paths);
  const wall = router.kind === 'command';
  const parsed = parseSeedRange(o.seeds ?? (wall ? `1..${WALL_CLOCK_SEEDS}` : '1..100'));
  if (!parsed.ok) throw new CliError('CLI_USAGE', `--seeds: ${parsed.message}.`);
  if (router.kind === 'module')
    await stat(router.path).catch(() => {
      throw new CliError(
        'CLI_USAGE',
        `--router ${o.router}: no such module. Name a file exporting a fetch handler or createRouter.`,
      );
    });
  const out = o.out ?? join('reports', `explore-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  await assertWritableDir(o.out ?? 'reports');
  // Every file is read before any runs: a bad one stops the sweep with its problems located.
  const loadMs = new Map<string, number>();
  const choice = router.kind === 'command' ? { routerCmd: router.command } : { time: 'simulated' as const };
  for (const f of files) {
    const p = await prepareRun(f, choice, io);
    if (!p) return EXIT.BAD_INPUT;
    loadMs.set(f, p.scenario.load!.duration);
  }
  const runCount = files.length * parsed.seeds.length;
  const workers = Math.min(o.workers ?? (wall ? 1 : availableParallelism()), runCount);
  const label = routerLabel(router);
  io.out(
    `throttlelab explore: ${files.length} scenario${files.length === 1 ? '' : 's'} × seeds ${formatSeedRange(parsed.seeds)} (${runCount} run${runCount === 1 ? '' : 's'}) against ${label}, ${workers} worker${workers === 1 ? '' : 's'}`,
  );
  if (wall && o.seeds === undefined)
    io.out(
      `  note: a router command runs on the wall clock, each run taking its load's real time: ${WALL_CLOCK_SEEDS} seeds, not 100 (name more with --seeds)`,
    );
  const started = performance.now();
  const { summary, runs } = await sweep(
    {
      files,
      seeds: parsed.seeds,
      router,
      workers,
      loadMs,
      jobTimeoutMs: (load) => o.jobTimeoutMs ?? (wall ? load + 120_000 : 120_000),
      ...(o.prepare ? { prepare: o.prepare } : {}),
      ...(o.replayFlags ? { replayFlags: o.replayFlags } : {}),
    },
    io,
  );
  io.out(renderExploreText(summary));
  io.out(`  in ${((performance.now() - started) / 1000).toFixed(1)} s wall`);
  const written = await writeSweep(
    summary,
    runs,
    label,
    { json: o.json ?? join(out, 'explore.json'), html: o.html ?? join(out, 'explore.html') },
    o.evidence,
  );
  io.out(`report: ${written.join(', ')}`);
  if (o.onFailure)
    for (const r of runs)
      if (r.ok && r.verdict === 'fail') {
        const checks = r.checks.filter((c) => c.verdict === 'fail').map((c) => c.id);
        const line = await o.onFailure({ file: r.file, seed: r.seed, scenario: r.scenario, checks });
        if (line) io.out(line);
      }
  if (io.stop.aborted) return interruptedCode(io.stop);
  return verdictCode([summary.verdict]);
}
