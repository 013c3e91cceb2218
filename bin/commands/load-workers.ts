import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  openLoadGroup,
  startRedisServer,
  type LoadGroupResult,
  type LoadJob,
  type RedisServer,
  type SplitLoad,
  isFleet,
  type RunScenario,
} from '../../harness/index.js';
import { CliError } from '../errors.js';
import type { Io } from '../io.js';

/** The CLI's entry: the built file, or its source when this runs through tsx. */
function cliEntry(): { file: string; tsx: boolean } {
  const built = fileURLToPath(new URL('../throttlelab.js', import.meta.url));
  if (existsSync(built)) return { file: built, tsx: false };
  return { file: fileURLToPath(new URL('../throttlelab.ts', import.meta.url)), tsx: true };
}

/** Options of `splitLoad`. */
export interface SplitLoadOptions {
  /** Workers (segments) in all. */
  segments: number;
  /** How many of them this command starts on this host; the rest join with `load-worker --join`. */
  local: number;
  /** The Redis the group meets on; a private redis-server when absent (then only local workers can join). */
  redisUrl?: string;
}

/**
 * `run --load-workers N`: a load group on Redis whose `local` workers are `load-worker`
 * processes this command starts (the same command a worker on another host runs), so a run
 * with local workers only and one with remote ones take one code path.
 */
async function splitLoad(o: SplitLoadOptions, io: Io): Promise<SplitLoad & { close(): Promise<void> }> {
  const own: RedisServer | undefined = o.redisUrl ? undefined : await startRedisServer();
  const redisUrl = o.redisUrl ?? own!.url;
  const children = new Set<ChildProcess>();
  const entry = cliEntry();
  const startWorker = (group: string) => {
    const child = spawn(
      process.execPath,
      [...(entry.tsx ? ['--import', 'tsx'] : []), entry.file, 'load-worker', '--join', redisUrl, '--group', group],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let tail = '';
    child.stderr?.on('data', (d: Buffer) => (tail = (tail + d.toString()).slice(-1000)));
    child.once('exit', (code) => {
      children.delete(child);
      if (code)
        io.err(`load worker ${child.pid} exited (code ${code}): ${tail.trim().split('\n').slice(-2).join(' | ')}`);
    });
    children.add(child);
  };
  return {
    segments: o.segments,
    async run(job: LoadJob, signal?: AbortSignal, onStarted?: (startAt: number) => void): Promise<LoadGroupResult> {
      const group = await openLoadGroup({ redisUrl, job });
      try {
        for (let i = 0; i < o.local; i++) startWorker(group.id);
        const remote = o.segments - o.local;
        if (remote > 0)
          io.err(
            `load: waiting for ${remote} more load worker${remote === 1 ? '' : 's'}: throttlelab load-worker --join ${redisUrl} --group ${group.id}`,
          );
        return await group.run(signal, onStarted);
      } finally {
        await group.close();
      }
    },
    async close() {
      for (const child of children) child.kill();
      await own?.close();
    },
  };
}

/** Why `--load-workers` cannot split this run's load, if it cannot. */
function loadWorkersProblem(scenario: RunScenario, simulated: boolean, o: SplitLoadOptions): string | undefined {
  if (simulated) return '--load-workers sends on the wall clock; drop --time simulated.';
  if (scenario.load?.mode !== 'open')
    return "--load-workers splits an open-loop schedule; this scenario's load is a closed loop.";
  if (isFleet(scenario.router)) return '--load-workers sends to one router; this scenario starts a fleet.';
  if (o.local > o.segments) return '--local-load-workers cannot be more than --load-workers.';
  return undefined;
}

/** `run --load-workers`: the split load for a prepared run, or a usage error saying why not. */
export async function splitLoadOf(
  prepared: { scenario: RunScenario; simulated?: unknown },
  options: { loadWorkers?: number; localLoadWorkers?: number; redisUrl?: string },
  io: Io,
): Promise<SplitLoad & { close(): Promise<void> }> {
  const segments = options.loadWorkers ?? 1;
  const o = { segments, local: options.localLoadWorkers ?? segments, redisUrl: options.redisUrl };
  const problem = loadWorkersProblem(prepared.scenario, prepared.simulated !== undefined, o);
  if (problem) throw new CliError('CLI_USAGE', problem);
  return splitLoad(o, io);
}
