import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PoolWorker, SeedRun } from '../harness/index.js';
import type { ExploreJob } from './explore-job.js';

/** The worker's entry: the built file beside this one, or its source when this runs through tsx. */
function workerEntry(): { file: string; tsx: boolean } {
  const built = fileURLToPath(new URL('./explore-worker.js', import.meta.url));
  if (existsSync(built)) return { file: built, tsx: false };
  return { file: fileURLToPath(new URL('./explore-worker.ts', import.meta.url)), tsx: true };
}

/**
 * Forks a worker process of `throttlelab explore`: one job at a time over IPC. A worker that dies
 * fails its job with its exit and the tail of its stderr; `kill` ends it at once (a timeout, the end).
 * `tsx`: load TypeScript in the worker too (a module router written in TypeScript).
 */
export function forkExploreWorker(options: { tsx?: boolean } = {}): PoolWorker<ExploreJob, SeedRun> {
  const entry = workerEntry();
  const child = fork(entry.file, [], {
    execArgv: entry.tsx || options.tsx ? ['--import', 'tsx'] : [],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-2000)));
  let pending: { resolve: (run: SeedRun) => void; reject: (e: Error) => void } | undefined;
  const fail = (e: Error) => {
    pending?.reject(e);
    pending = undefined;
  };
  child.on('message', (m: { run: SeedRun }) => {
    pending?.resolve(m.run);
    pending = undefined;
  });
  child.on('error', fail);
  child.on('exit', (code, signal) => {
    const last = tail.trim().split('\n').slice(-3).join(' | ');
    fail(new Error(`the worker process exited (${signal ?? `code ${code}`})${last ? `: ${last}` : ''}`));
  });
  return {
    run: (job) =>
      new Promise<SeedRun>((resolve, reject) => {
        pending = { resolve, reject };
        child.send({ job }, (e) => e && fail(e));
      }),
    kill: () => {
      child.kill('SIGKILL');
    },
  };
}
