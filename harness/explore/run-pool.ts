/** A worker of the pool: it runs one job at a time and can be killed at any moment (a crash, a timeout). */
export interface PoolWorker<J, R> {
  run(job: J): Promise<R>;
  kill(): void;
}

/** A job's outcome: its value, or why it has none (it threw, its worker died, it ran out of time). */
export type PoolOutcome<R> = { ok: true; value: R; wallMs: number } | { ok: false; error: string; wallMs: number };

/** The most workers a pool starts, whatever it is asked for: each is a process with its own heap. */
export const MAX_POOL_WORKERS = 64;

/** Options for `runPool`. */
export interface PoolOptions<J, R> {
  jobs: readonly J[];
  /** How many workers run at once (at most MAX_POOL_WORKERS, and never more than there are jobs). */
  workers: number;
  /** Starts a worker; it is reused job after job until a job of it fails. */
  spawn: () => PoolWorker<J, R>;
  /** How long a job may take before its worker is killed and the job reported as timed out. */
  jobTimeoutMs: (job: J) => number;
  /** Stops the pool: running jobs are killed and, with the jobs never started, left without an outcome. */
  signal?: AbortSignal;
  /** Each outcome as it comes, in finishing order (the returned array is in job order). */
  onResult?: (index: number, outcome: PoolOutcome<R>) => void;
  /** The wall clock: the pool times jobs out, so it needs one (injected for tests). */
  clock?: { now(): number; setTimer(fn: () => void, ms: number): () => void };
}

const realClock = {
  now: () => performance.now(),
  setTimer: (fn: () => void, ms: number) => {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * Runs jobs on a bounded pool of workers and returns every job's outcome in job order, whatever
 * order they finished in: undefined for a job the signal kept from finishing. A job that throws,
 * whose worker dies or that runs past its timeout is an error of that job alone; its worker is
 * killed and the next job gets a fresh one.
 */
export async function runPool<J, R>(o: PoolOptions<J, R>): Promise<Array<PoolOutcome<R> | undefined>> {
  const clock = o.clock ?? realClock;
  const results: Array<PoolOutcome<R> | undefined> = new Array<PoolOutcome<R> | undefined>(o.jobs.length).fill(
    undefined,
  );
  const live = new Set<PoolWorker<J, R>>();
  const stopped = new Promise<'stopped'>((resolve) => {
    if (o.signal?.aborted) resolve('stopped');
    o.signal?.addEventListener('abort', () => resolve('stopped'), { once: true });
  });
  let next = 0;

  const runOne = async (worker: PoolWorker<J, R>, job: J): Promise<PoolOutcome<R> | 'stopped'> => {
    const started = clock.now();
    const timeoutMs = o.jobTimeoutMs(job);
    let cancel = () => {};
    const timedOut = new Promise<'timeout'>(
      (resolve) => (cancel = clock.setTimer(() => resolve('timeout'), timeoutMs)),
    );
    try {
      const done = await Promise.race([
        worker.run(job).then(
          (value) => ({ value }),
          (error: unknown) => ({ error: message(error) }),
        ),
        timedOut,
        stopped,
      ]);
      const wallMs = clock.now() - started;
      if (done === 'stopped') return done;
      if (done === 'timeout') return { ok: false, error: `timed out after ${timeoutMs} ms`, wallMs };
      return 'error' in done ? { ok: false, error: done.error, wallMs } : { ok: true, value: done.value, wallMs };
    } finally {
      cancel();
    }
  };

  const lane = async () => {
    let worker: PoolWorker<J, R> | undefined;
    const retire = () => {
      if (!worker) return;
      live.delete(worker);
      worker.kill();
      worker = undefined;
    };
    try {
      while (!o.signal?.aborted && next < o.jobs.length) {
        const i = next++;
        let outcome: PoolOutcome<R> | 'stopped';
        try {
          worker ??= o.spawn();
          live.add(worker);
          outcome = await runOne(worker, o.jobs[i]!);
        } catch (error) {
          outcome = { ok: false, error: `Failed to start a worker: ${message(error)}`, wallMs: 0 };
        }
        if (outcome === 'stopped') break;
        if (!outcome.ok) retire();
        results[i] = outcome;
        o.onResult?.(i, outcome);
      }
    } finally {
      retire();
    }
  };

  const count = Math.max(1, Math.min(Math.floor(o.workers), o.jobs.length, MAX_POOL_WORKERS));
  await Promise.all(Array.from({ length: o.jobs.length === 0 ? 0 : count }, lane));
  return results;
}
