import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  judgeInProcess,
  runSimulatedScenario,
  type FetchTarget,
  type InProcessContext,
  type RunData,
  type SeedRun,
} from '../harness/index.js';
import type { Io } from './io.js';
import { executeRun, prepareRun, type RouterChoice } from './commands/run.js';

/** Which router a sweep judges: the reference router, a module in process, or a command on the wall clock. */
export type ExploreRouter =
  | { kind: 'reference'; time: 'wall' | 'simulated'; redisUrl?: string }
  | { kind: 'module'; path: string }
  | { kind: 'command'; command: string; redisUrl?: string };

/** One (scenario, seed) job as a worker gets it; `text` replaces the file's text (a scenario already prepared). */
export interface ExploreJob {
  file: string;
  seed: number;
  text?: string;
  router: ExploreRouter;
}

/**
 * A module router: `createRouter(ctx)` when the module exports it (it reads the simulated
 * providers' URLs and keys from `ctx`), else the module itself as a fetch handler
 * (`export default { fetch }`, or `export function fetch`).
 */
async function moduleRouter(path: string): Promise<(ctx: InProcessContext) => FetchTarget | Promise<FetchTarget>> {
  const mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  const create = mod.createRouter;
  if (typeof create === 'function') return create as (ctx: InProcessContext) => FetchTarget;
  return () => mod as FetchTarget;
}

function quietIo(env: Io['env'], said: string[]): Io {
  return {
    out: () => {},
    err: (line) => said.push(line),
    env,
    stop: new AbortController().signal,
    randomSeed: () => 1,
    isTTY: false,
    status: () => {},
  };
}

/** The `run` choice a job makes for its router: a fleet's `--redis-url` goes with it to the worker. */
export function choiceOf(r: ExploreRouter): RouterChoice {
  const redis = r.kind !== 'module' && r.redisUrl ? { redisUrl: r.redisUrl } : {};
  return r.kind === 'command'
    ? { routerCmd: r.command, ...redis }
    : { time: r.kind === 'reference' ? r.time : 'simulated', ...redis };
}

type Judged = Pick<RunData, 'verdict' | 'checks' | 'inconclusive'> & { name: string };

async function judge(job: ExploreJob, file: string, env: Io['env'], said: string[]): Promise<Judged> {
  const io = quietIo(env, said);
  const prepared = await prepareRun(file, choiceOf(job.router), io);
  if (!prepared) throw new Error(said.join('\n') || `Failed to read ${job.file}`);
  const name = prepared.scenario.name;
  if (job.router.kind === 'module') {
    const router = await moduleRouter(job.router.path);
    const data = await judgeInProcess({
      scenario: { scenario: prepared.scenario, text: prepared.text, file: job.file },
      router,
      description: `module ${job.router.path} (in process, simulated time)`,
      seed: job.seed,
    });
    return { ...data, name };
  }
  if (prepared.simulated) {
    const data = await runSimulatedScenario({
      scenario: prepared.scenario,
      scenarioText: prepared.text,
      scenarioFile: job.file,
      seed: job.seed,
      launcher: prepared.simulated,
      env,
    });
    return { ...data, name };
  }
  const { report } = await executeRun(prepared, file, job.seed, io);
  return { verdict: report.verdict, checks: report.checks, inconclusive: report.inconclusive, name };
}

let tempFiles = 0;

/** Runs one job in this process (a worker's) and says what it gave; a failure to run is an error of the job. */
export async function runExploreJob(job: ExploreJob, env: Io['env']): Promise<SeedRun> {
  const started = performance.now();
  const said: string[] = [];
  // A prepared scenario is judged from a file of its own, so its problems are located in it.
  const temp =
    job.text === undefined ? undefined : join(tmpdir(), `throttlelab-explore-${process.pid}-${tempFiles++}.yaml`);
  try {
    if (temp) await writeFile(temp, job.text!);
    const data = await judge(job, temp ?? job.file, env, said);
    return {
      file: job.file,
      seed: job.seed,
      wallMs: performance.now() - started,
      ok: true,
      scenario: data.name,
      verdict: data.verdict,
      checks: data.checks.map((c) => ({
        id: c.id,
        verdict: c.verdict,
        figure: c.figure,
        ...(c.reason ? { reason: c.reason } : {}),
      })),
      ...(data.inconclusive?.length ? { inconclusive: data.inconclusive } : {}),
    };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { file: job.file, seed: job.seed, wallMs: performance.now() - started, ok: false, error: why };
  } finally {
    if (temp) await rm(temp, { force: true });
  }
}
