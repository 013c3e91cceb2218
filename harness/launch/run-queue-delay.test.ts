import { describe, expect, it } from 'vitest';
import { countedThreads, createRunQueueSeries, type ProcessWaits, type SchedSample } from './run-queue-delay.js';

const T0 = 1_700_000_000_000;
const MS = 1e6;

/** A sample `at` ms from T0 of processes given as [pid, node, [tid, wait ms]...]. */
const sample = (at: number, ...processes: [number, boolean, ...[number, number][]][]): SchedSample => ({
  at: T0 + at,
  processes: processes.map(([pid, node, ...threads]) => ({
    pid,
    node,
    threads: threads.map(([tid, ms]) => ({ tid, waitNs: ms * MS })),
  })),
});

const seriesOf = (...samples: SchedSample[]) => {
  const s = createRunQueueSeries();
  for (const x of samples) s.add(x);
  return s.delay();
};

describe('countedThreads', () => {
  it("counts only a Node process's main thread, and every thread of any other process", () => {
    const threads = [
      { tid: 10, waitNs: 1 },
      { tid: 11, waitNs: 2 },
    ];
    const node: ProcessWaits = { pid: 10, node: true, threads };
    expect(countedThreads(node)).toEqual([{ tid: 10, waitNs: 1 }]);
    expect(countedThreads({ ...node, node: false })).toEqual(threads);
    // A Node process whose main thread was not read: nothing, not its helper threads.
    expect(countedThreads({ pid: 9, node: true, threads })).toEqual([]);
  });
});

describe('createRunQueueSeries', () => {
  it('accrues, per interval, the largest wait of one counted thread rather than the sum over threads', () => {
    const d = seriesOf(
      sample(0, [1, false, [1, 0], [2, 0], [3, 0]]),
      // Three threads each waited 30 ms in the same 100 ms: a request held by one waited 30, not 90.
      sample(100, [1, false, [1, 30], [2, 30], [3, 30]]),
      // Then one thread waits 50 ms.
      sample(200, [1, false, [1, 30], [2, 80], [3, 30]]),
    );
    expect(d.delayMs(T0, T0 + 200)).toBe(80);
    expect(d.delayMs(T0 + 100, T0 + 200)).toBe(50);
  });

  it("counts a Node router's main thread only: its helper threads waiting do not excuse a request", () => {
    const d = seriesOf(sample(0, [7, true, [7, 0], [8, 0]]), sample(100, [7, true, [7, 10], [8, 90]]));
    expect(d.delayMs(T0, T0 + 100)).toBe(10);
  });

  it("counts nothing for a Node process in an interval whose sample missed its main thread, not its helpers' waits", () => {
    const d = seriesOf(
      sample(0, [7, true, [7, 300], [8, 0]]),
      sample(100, [7, true, [8, 90]]),
      sample(200, [7, true, [7, 320], [8, 90]]),
    );
    expect(d.delayMs(T0, T0 + 100)).toBe(0);
    // The main thread's last reading was kept: 20 ms accrued since, not its 320 ms since it began.
    expect(d.delayMs(T0 + 100, T0 + 200)).toBe(20);
  });

  it('keeps a thread missing from a sample, so that when read again only what it accrued since counts', () => {
    const d = seriesOf(
      sample(0, [1, false, [1, 0], [2, 400]]),
      sample(100, [1, false, [1, 0]]),
      sample(200, [1, false, [1, 0], [2, 410]]),
    );
    expect(d.delayMs(T0, T0 + 200)).toBe(10);
  });

  it('forgets a thread unread for eight samples: read again, it is a new thread', () => {
    const samples = [sample(0, [1, false, [1, 0], [2, 400]])];
    for (let t = 100; t <= 800; t += 100) samples.push(sample(t, [1, false, [1, 0]]));
    samples.push(sample(900, [1, false, [1, 0], [2, 410]]));
    const d = seriesOf(...samples);
    expect(d.delayMs(T0, T0 + 800)).toBe(0);
    expect(d.delayMs(T0 + 800, T0 + 900)).toBe(100);
  });

  it('names the executables whose threads were counted, not those of a Node process with no main thread read', () => {
    const exe = (x: SchedSample, ...names: string[]): SchedSample => ({
      ...x,
      processes: x.processes.map((p, i) => ({ ...p, exe: names[i] })),
    });
    const s = seriesOf(
      exe(sample(0, [1, false, [1, 0]], [2, true, [3, 0]]), 'sh', 'bun'),
      exe(sample(100, [1, false, [1, 0]], [4, true, [4, 0]]), 'sh', 'node'),
    ).summary();
    expect(s.executables).toEqual(['node', 'sh']);
  });

  it('takes the largest across the processes of the tree (a wrapper shell and the router it started)', () => {
    const d = seriesOf(
      sample(0, [1, false, [1, 5]], [2, true, [2, 100]]),
      sample(100, [1, false, [1, 6]], [2, true, [2, 140]]),
    );
    expect(d.delayMs(T0, T0 + 100)).toBe(40);
  });

  it('spreads an interval evenly over a span that covers part of it, and clamps outside the samples', () => {
    const d = seriesOf(sample(0, [1, false, [1, 0]]), sample(100, [1, false, [1, 60]]));
    expect(d.delayMs(T0 + 25, T0 + 75)).toBe(30);
    expect(d.delayMs(T0 - 500, T0 + 50)).toBe(30);
    expect(d.delayMs(T0 + 100, T0 + 900)).toBe(0);
    // A reversed or empty span accrues nothing.
    expect(d.delayMs(T0 + 75, T0 + 25)).toBe(0);
    expect(d.delayMs(T0 + 50, T0 + 50)).toBe(0);
  });

  it('never accrues more than the interval lasted, nor less than nothing', () => {
    const d = seriesOf(
      sample(0, [1, false, [1, 0]]),
      // A thread the sampler had not seen (born meanwhile) brings all its wait since it began.
      sample(100, [1, false, [1, 0], [2, 500]]),
      // A thread id reused by a younger thread reads lower than before: its own wait, not a negative one.
      sample(200, [1, false, [1, 0], [2, 20]]),
    );
    expect(d.delayMs(T0, T0 + 100)).toBe(100);
    expect(d.delayMs(T0 + 100, T0 + 200)).toBe(20);
    for (let t = 0; t < 200; t += 10) expect(d.delayMs(T0 + t, T0 + t + 10)).toBeLessThanOrEqual(10);
  });

  it('ignores a sample stamped no later than the last one, losing nothing it accrued', () => {
    const d = seriesOf(
      sample(0, [1, false, [1, 0]]),
      sample(100, [1, false, [1, 10]]),
      sample(100, [1, false, [1, 15]]),
      sample(200, [1, false, [1, 40]]),
    );
    expect(d.delayMs(T0, T0 + 200)).toBe(40);
    expect(d.summary().samples).toBe(3);
  });

  it('sums the run and finds its worst window, wherever the window falls between samples', () => {
    // 10 ms every 100 ms for 3 s, but 400 ms read in 1.5–1.6 s: capped at the 100 ms the interval lasted.
    const samples = [sample(0, [1, false, [1, 0]], [2, false, [2, 0]])];
    let wait = 0;
    for (let t = 100; t <= 3000; t += 100) {
      wait += t === 1600 ? 400 : 10;
      samples.push(sample(t, [1, false, [1, wait]], [2, false, [2, 0]]));
    }
    const s = seriesOf(...samples).summary();
    expect(s.totalMs).toBe(29 * 10 + 100);
    // Any 1 s holding 1.5–1.6 s: 100 ms and nine intervals of 10 ms.
    expect(s.worstWindowMs).toBeCloseTo(190, 6);
    expect(s).toMatchObject({ windowMs: 1000, samples: 31, processes: 2, threads: 2 });
    expect(seriesOf(...samples).summary(200).worstWindowMs).toBeCloseTo(110, 6);
  });

  it('keeps its points bounded on a long run, with every total still exact', () => {
    const s = createRunQueueSeries(64);
    for (let i = 0; i <= 1000; i++) s.add(sample(i * 50, [1, false, [1, i * 5]]));
    const d = s.delay();
    expect(d.delayMs(T0, T0 + 50_000)).toBeCloseTo(5000, 6);
    expect(d.delayMs(T0 + 10_000, T0 + 20_000)).toBeCloseTo(1000, 6);
    expect(d.summary().totalMs).toBeCloseTo(5000, 6);
    expect(d.summary().samples).toBe(1001);
  });

  it('reads zero for a run with no sample, or one', () => {
    expect(seriesOf().delayMs(T0, T0 + 1000)).toBe(0);
    expect(seriesOf().summary()).toMatchObject({ totalMs: 0, worstWindowMs: 0, samples: 0 });
    expect(seriesOf(sample(0, [1, false, [1, 999]])).summary().totalMs).toBe(0);
  });
});
