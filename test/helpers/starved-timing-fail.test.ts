import { describe, expect, it } from 'vitest';
import { isStarvedTimingFail, measuredStarvationMs } from './starved-timing-fail.js';

const lag = { loopP99Ms: 20, loopMaxMs: 300, sendP99Ms: 30, sendMaxMs: 120 };
const runQueue = { totalMs: 900, worstWindowMs: 200, windowMs: 1000, samples: 40, processes: 1, threads: 1 };
const timingFail = (worstMarginMs: number) => ({
  verdict: 'fail' as const,
  timing: { toleranceMs: 0, worstMarginMs },
});

describe('a timing FAIL excused by the starvation a run measured', () => {
  it("adds the harness's longest stall to the router's worst window of waiting for a CPU", () => {
    expect(measuredStarvationMs({ lag, routerRunQueue: runQueue })).toBe(500);
    expect(measuredStarvationMs({ lag, routerRunQueue: { unavailable: 'not Linux' } })).toBe(300);
    expect(measuredStarvationMs({})).toBe(0);
  });

  it('excuses a violation no larger than the starvation, and stands beyond it', () => {
    const run = { lag, routerRunQueue: runQueue };
    expect(isStarvedTimingFail(timingFail(500), run)).toBe(true);
    expect(isStarvedTimingFail(timingFail(501), run)).toBe(false);
  });

  it('lets every FAIL stand on a quiet machine, and a FAIL without timing always', () => {
    const quiet = { lag: { loopP99Ms: 1, loopMaxMs: 4, sendP99Ms: 1, sendMaxMs: 2 } };
    expect(isStarvedTimingFail(timingFail(50), quiet)).toBe(false);
    expect(isStarvedTimingFail({ verdict: 'fail' }, { lag, routerRunQueue: runQueue })).toBe(false);
    expect(isStarvedTimingFail({ ...timingFail(10), verdict: 'pass' }, { lag })).toBe(false);
  });
});
