import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../errors.js';
import type { ClientOutcome } from './client-outcome.js';
import type { LoadWorkerResult } from './load-group-keys.js';
import { inSegment } from './open-loop.js';
import { mergeLoadResults } from './open-load-group.js';

const lag = { p50Ms: 0, p99Ms: 1, maxMs: 2, samples: 3 };
const outcome = (id: string, scheduledAt: number) => ({ id, scheduledAt, sentAt: scheduledAt }) as ClientOutcome;
const worker = (
  segment: number,
  outcomes: ClientOutcome[],
  extra: Partial<LoadWorkerResult> = {},
): LoadWorkerResult => ({
  segment,
  host: 'h',
  pid: 100 + segment,
  sent: outcomes.length,
  dropped: 0,
  outcomes,
  loopLag: lag,
  ...extra,
});

describe('inSegment', () => {
  it('deals every arrival to exactly one of the segments', () => {
    for (const count of [1, 2, 3, 7])
      for (let n = 0; n < 50; n++)
        expect(
          Array.from({ length: count }, (_, index) => inSegment(n, { index, count })).filter(Boolean),
        ).toHaveLength(1);
  });

  it('gives each segment every count-th arrival, starting at its index', () => {
    const mine = Array.from({ length: 10 }, (_, n) => n).filter((n) => inSegment(n, { index: 1, count: 3 }));
    expect(mine).toEqual([1, 4, 7]);
  });
});

describe('mergeLoadResults', () => {
  it('merges the outcomes in schedule order and sums what was not sent', () => {
    const merged = mergeLoadResults([
      worker(1, [outcome('b', 10), outcome('d', 30)], { dropped: 2 }),
      worker(0, [outcome('a', 0), outcome('c', 20)]),
    ]);
    expect(merged.outcomes.map((o) => o.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(merged.dropped).toBe(2);
    expect(merged.workers.map((w) => [w.segment, w.sent, 'outcomes' in w])).toEqual([
      [0, 2, false],
      [1, 2, false],
    ]);
  });

  it('fails the load when a worker could not send its segment', () => {
    let error: unknown;
    try {
      mergeLoadResults([worker(0, [outcome('a', 0)]), worker(1, [], { error: 'router unreachable' })]);
    } catch (e) {
      error = e;
    }
    expect(isHarnessError(error, 'HARNESS_LOAD_WORKER_FAILED')).toBe(true);
    expect((error as Error).message).toMatch(/segment 2 .*router unreachable/);
  });
});
