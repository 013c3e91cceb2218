import { describe, expect, it } from 'vitest';
import { input, outcome, stalls, T0 } from '../../test/helpers/evidence.js';
import { createRunQueueSeries } from '../launch/run-queue-delay.js';
import { checkDeadline } from './deadline.js';
import { starvationDuring, starvationWords } from './starvation.js';

/** A Node router whose main thread waited for a CPU in `spans` (ms from T0), sampled every 50 ms over [0, end). */
function routerStarved(end: number, ...spans: [number, number][]) {
  const series = createRunQueueSeries();
  const waited = stalls(...spans);
  for (let at = 0; at <= end; at += 50)
    series.add({
      at: T0 + at,
      processes: [{ pid: 7, node: true, threads: [{ tid: 7, waitNs: waited(T0, T0 + at) * 1e6 }] }],
    });
  const d = series.delay();
  return {
    routerWaitMs: (from: number, to: number) => d.delayMs(from, to),
    routerSampledAt: (from: number, to: number) => d.sampledAt(from, to),
  };
}

describe('starvationDuring', () => {
  it('counts once a stretch that held both the harness and the router off the CPU', () => {
    const s = starvationDuring(
      { loopBehindMs: stalls([1000, 1700]), ...routerStarved(4000, [1000, 1700]) },
      T0,
      T0 + 4000,
    );
    expect(s.loopMs).toBe(700);
    expect(s.routerMs).toBe(700);
    expect(s.ms).toBe(700);
    expect(starvationWords(s)).toBe(
      "the harness's loop was behind 700 ms and the router waited 700 ms for a CPU, 700 ms in all, partly at once",
    );
  });

  it('adds up starvation at different times, and without the sample instants takes the span as one piece', () => {
    const apart = { loopBehindMs: stalls([1000, 1700]), ...routerStarved(4000, [2000, 2700]) };
    expect(starvationDuring(apart, T0, T0 + 4000).ms).toBe(1400);
    const overlapping = { loopBehindMs: stalls([1000, 1700]), ...routerStarved(4000, [1000, 1700]) };
    expect(starvationDuring({ ...overlapping, routerSampledAt: undefined }, T0, T0 + 4000).ms).toBe(1400);
  });

  it('never excuses less than the union of the two, however many samples a long span holds', () => {
    // 30 s of samples every 50 ms (600 instants, taken 64 pieces at most): disjoint stalls, all counted.
    const loop = Array.from({ length: 30 }, (_, i): [number, number] => [i * 1000, i * 1000 + 100]);
    const router = Array.from({ length: 30 }, (_, i): [number, number] => [i * 1000 + 500, i * 1000 + 700]);
    const s = starvationDuring({ loopBehindMs: stalls(...loop), ...routerStarved(30_000, ...router) }, T0, T0 + 30_000);
    expect(s.ms).toBeCloseTo(9000, 6);
  });
});

describe('deadline when the harness and the router starved at the same time', () => {
  it('FAILs a request later than the stretch that starved both, counted once', () => {
    // 750 ms late past the 50 ms tolerance on a 3 s deadline; one 700 ms stretch held both off the CPU.
    const late = [outcome({ id: 'a', at: 0, deadlineMs: 3000, endAt: T0 + 3800 })];
    const r = checkDeadline({
      ...input({ outcomes: late }),
      loopBehindMs: stalls([1000, 1700]),
      ...routerStarved(4000, [1000, 1700]),
    });
    expect(r.verdict).toBe('fail');
    const apart = checkDeadline({
      ...input({ outcomes: late }),
      loopBehindMs: stalls([1000, 1700]),
      ...routerStarved(4000, [2000, 2700]),
    });
    expect(apart.verdict).toBe('inconclusive');
  });
});
