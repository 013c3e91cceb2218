import { describe, expect, it } from 'vitest';
import { runPool, type PoolWorker } from './run-pool.js';

/** Workers whose jobs are numbers: a job finishes when the test says so, and says which worker ran it. */
function fakeWorkers(behave: (job: number) => Promise<number> | 'hang' = (job) => Promise.resolve(job * 10)) {
  const spawned: Array<{ id: number; killed: boolean; busy: boolean }> = [];
  let maxBusy = 0;
  const spawn = (): PoolWorker<number, string> => {
    const me = { id: spawned.length, killed: false, busy: false };
    spawned.push(me);
    return {
      async run(job) {
        me.busy = true;
        maxBusy = Math.max(maxBusy, spawned.filter((w) => w.busy).length);
        try {
          const b = behave(job);
          const value = b === 'hang' ? await new Promise<number>(() => {}) : await b;
          return `w${me.id}:${value}`;
        } finally {
          me.busy = false;
        }
      },
      kill: () => void (me.killed = true),
    };
  };
  return { spawn, spawned, maxBusy: () => maxBusy };
}

const timeout = () => 1000;

describe('runPool', () => {
  it('returns outcomes in job order while streaming them in finishing order', async () => {
    const gates = new Map<number, () => void>();
    const { spawn } = fakeWorkers((job) => new Promise<number>((resolve) => gates.set(job, () => resolve(job))));
    const finished: number[] = [];
    const pool = runPool({
      jobs: [0, 1, 2],
      workers: 3,
      spawn,
      jobTimeoutMs: timeout,
      onResult: (i) => finished.push(i),
    });
    await new Promise((r) => setImmediate(r));
    for (const job of [2, 0, 1]) {
      gates.get(job)!();
      await new Promise((r) => setImmediate(r));
    }
    const results = await pool;
    expect(finished).toEqual([2, 0, 1]);
    expect(results.map((r) => r?.ok && r.value)).toEqual(['w0:0', 'w1:1', 'w2:2']);
  });

  it('runs at most the given number of jobs at once, reusing each worker', async () => {
    const w = fakeWorkers((job) => new Promise((r) => setImmediate(() => r(job))));
    const results = await runPool({ jobs: [1, 2, 3, 4, 5, 6, 7], workers: 2, spawn: w.spawn, jobTimeoutMs: timeout });
    expect(results.every((r) => r?.ok)).toBe(true);
    expect(w.spawned).toHaveLength(2);
    expect(w.maxBusy()).toBe(2);
    expect(w.spawned.every((s) => s.killed)).toBe(true);
  });

  it('reports a job that throws as its own error and gives the next job a fresh worker', async () => {
    const w = fakeWorkers((job) =>
      job === 2 ? Promise.reject(new Error('worker exited with code 1')) : Promise.resolve(job),
    );
    const results = await runPool({ jobs: [1, 2, 3], workers: 1, spawn: w.spawn, jobTimeoutMs: timeout });
    expect(results.map((r) => (r?.ok ? r.value : r?.error))).toEqual(['w0:1', 'worker exited with code 1', 'w1:3']);
    expect(w.spawned.map((s) => s.killed)).toEqual([true, true]);
  });

  it('kills a worker whose job runs past its timeout and reports the job as timed out', async () => {
    const w = fakeWorkers((job) => (job === 1 ? 'hang' : Promise.resolve(job)));
    const results = await runPool({ jobs: [1, 2], workers: 1, spawn: w.spawn, jobTimeoutMs: () => 20 });
    expect(results.map((r) => (r?.ok ? r.value : r?.error))).toEqual(['timed out after 20 ms', 'w1:2']);
    expect(w.spawned[0]!.killed).toBe(true);
  });

  it('reports a worker that cannot start as an error of the job', async () => {
    const results = await runPool({
      jobs: [1],
      workers: 1,
      spawn: () => {
        throw new Error('EAGAIN');
      },
      jobTimeoutMs: timeout,
    });
    expect(results).toEqual([{ ok: false, error: 'Failed to start a worker: EAGAIN', wallMs: 0 }]);
  });

  it('stops at the signal: running jobs killed, they and the jobs never started have no outcome', async () => {
    const controller = new AbortController();
    const w = fakeWorkers((job) => (job === 1 ? Promise.resolve(job) : 'hang'));
    const pool = runPool({
      jobs: [1, 2, 3],
      workers: 1,
      spawn: w.spawn,
      jobTimeoutMs: timeout,
      signal: controller.signal,
    });
    await new Promise((r) => setImmediate(r));
    controller.abort();
    expect((await pool).map((r) => r?.ok)).toEqual([true, undefined, undefined]);
    expect(w.spawned.every((s) => s.killed)).toBe(true);
  });

  it('starts no worker given no jobs', async () => {
    const w = fakeWorkers();
    expect(await runPool({ jobs: [], workers: 4, spawn: w.spawn, jobTimeoutMs: timeout })).toEqual([]);
    expect(w.spawned).toHaveLength(0);
  });
});
