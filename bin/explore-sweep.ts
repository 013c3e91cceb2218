import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { parse, stringify } from 'yaml';
import {
  aggregateRuns,
  redactCommand,
  runPool,
  type ExploreSummary,
  type PoolWorker,
  type SeedRun,
} from '../harness/index.js';
import type { ExploreJob, ExploreRouter } from './explore-job.js';
import { forkExploreWorker } from './explore-workers.js';
import type { Io } from './io.js';
import { createProgressMeter } from './progress/progress-meter.js';

/** Rewrites a scenario document (its YAML, parsed) for one seed before the job runs: random weather, say. */
export type PrepareScenario = (doc: unknown, seed: number) => unknown;

/** Options of one sweep: every file at every seed. */
export interface SweepOptions {
  files: string[];
  seeds: number[];
  router: ExploreRouter;
  workers: number;
  /** A job's time limit (ms) given its file's load duration; the job is killed past it and reported as an error. */
  jobTimeoutMs: (loadMs: number) => number;
  /** Each file's load duration (ms), for its jobs' time limits. */
  loadMs: ReadonlyMap<string, number>;
  prepare?: PrepareScenario;
  /** Flags the replay line adds after `explore <file> --seeds N` when a job's scenario was prepared. */
  replayFlags?: string;
  /** Starts a worker (a forked process by default). */
  spawn?: () => PoolWorker<ExploreJob, SeedRun>;
}

const quote = (s: string) => (/^[\w./:=@-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
/** A path as the user would type it: relative to the current folder when that is shorter. */
export const shown = (file: string) => {
  const r = relative(process.cwd(), file);
  return r && !r.startsWith('..') ? r : file;
};

/**
 * The one line that replays a (scenario, seed) run of a sweep, as the CLI takes it; secrets in a
 * router command are redacted (the line is printed and kept with the sweep's reports).
 */
export function replayLine(o: Pick<SweepOptions, 'router' | 'prepare' | 'replayFlags'>, file: string, seed: number) {
  const f = quote(shown(file));
  const r = o.router;
  if (o.prepare || r.kind === 'module')
    return `throttlelab explore ${f} --seeds ${seed}${r.kind === 'module' ? ` --router ${quote(r.path)}` : r.kind === 'command' ? ` --router-cmd ${quote(redactCommand(r.command).shown)}` : ''}${o.replayFlags ? ` ${o.replayFlags}` : ''}`;
  if (r.kind === 'command')
    return `throttlelab run ${f} --router-cmd ${quote(redactCommand(r.command).shown)} --seed ${seed}`;
  return `throttlelab run ${f}${r.time === 'simulated' ? ' --time simulated' : ''} --seed ${seed}`;
}

/**
 * Runs every file at every seed on a pool of worker processes and tallies the runs: jobs go out
 * seed by seed (a seed's whole pack before the next), come back in any order, and are tallied in
 * file and seed order. A job that crashes or times out is an error of its (scenario, seed) alone.
 */
export async function sweep(o: SweepOptions, io: Io): Promise<{ summary: ExploreSummary; runs: SeedRun[] }> {
  const texts = new Map<string, string>();
  if (o.prepare) for (const f of o.files) texts.set(f, await readFile(f, 'utf8'));
  const jobs: ExploreJob[] = o.seeds.flatMap((seed) =>
    o.files.map((file) => {
      const text = texts.get(file);
      return {
        file,
        seed,
        router: o.router,
        ...(text !== undefined && o.prepare ? { text: stringify(o.prepare(parse(text), seed)) } : {}),
      };
    }),
  );
  let done = 0;
  let failed = 0;
  // A live line on a terminal, a line every few seconds elsewhere, none with --quiet.
  const meter = createProgressMeter(io);
  const tsx = o.router.kind === 'module' && /\.[mc]?ts$/.test(o.router.path);
  const outcomes = await runPool({
    jobs,
    workers: o.workers,
    spawn: o.spawn ?? (() => forkExploreWorker({ tsx })),
    jobTimeoutMs: (job) => o.jobTimeoutMs(o.loadMs.get(job.file) ?? 0),
    signal: io.stop,
    onResult: (_, outcome) => {
      done++;
      if (!outcome.ok || !outcome.value.ok || outcome.value.verdict === 'fail') failed++;
      meter.update(done / jobs.length, `${done} of ${jobs.length} runs, ${failed} failed or broke`);
    },
  });
  meter.clear();
  const runs = outcomes.flatMap((outcome, i): SeedRun[] => {
    if (!outcome) return [];
    const { file, seed } = jobs[i]!;
    return [outcome.ok ? outcome.value : { file, seed, wallMs: outcome.wallMs, ok: false, error: outcome.error }];
  });
  return { summary: aggregateRuns(o.files, o.seeds, runs, (file, seed) => replayLine(o, file, seed)), runs };
}
