import type { CheckResult } from '../../harness/checks/types.js';
import type { Report } from '../../harness/report/report.js';

/** What a run measured of a starved machine: its harness's lag and its router's wait for a CPU. */
type Measured = Pick<Report, 'lag' | 'routerRunQueue'>;

/**
 * The most a starved machine could have held one event of a run back, as the run measured it:
 * the harness's longest stall (event loop or send lag) plus the worst window of the router's
 * waiting for a CPU (a fleet's figure is never below any replica's). The two add up as
 * `starvationDuring` adds them: a request waits on the harness's loop and in the router's process
 * in turn. Zero when nothing was measured.
 */
export function measuredStarvationMs(run: Measured): number {
  const lag = run.lag ? Math.max(run.lag.loopMaxMs, run.lag.sendMaxMs) : 0;
  const rq = run.routerRunQueue;
  return lag + (rq && 'worstWindowMs' in rq ? rq.worstWindowMs : 0);
}

/**
 * Whether a check's FAIL is a timing failure the run's measured starvation covers: its worst
 * violation (`timing.worstMarginMs` past its tolerance) is no more than `measuredStarvationMs`.
 * On a quiet machine the starvation is a few ms and every FAIL stands; a count, key or content
 * failure (no `timing`) always stands.
 */
export function isStarvedTimingFail(check: Pick<CheckResult, 'verdict' | 'timing'>, run: Measured): boolean {
  return (
    check.verdict === 'fail' && check.timing !== undefined && check.timing.worstMarginMs <= measuredStarvationMs(run)
  );
}
