import { systemClock } from '../../simulator/index.js';
import { createSchedTreeReader, schedstatUnavailable } from './read-sched-tree.js';
import { createRunQueueSeries, type ProcessWaits, type RunQueueDelay } from './run-queue-delay.js';

/** What the recorder gathered: the timeline, or why there is none. */
export type RouterRunQueue = { delay: RunQueueDelay } | { unavailable: string };

/** A running recorder of the router's run-queue delay. */
export interface RunQueueRecorder {
  /** Takes a last sample and stops. */
  stop(): RouterRunQueue;
}

/** Options for `recordRunQueueDelay`; tests pass a fake /proc and clock. */
export interface RunQueueRecorderOptions {
  everyMs?: number;
  proc?: string;
  now?: () => number;
  read?: (roots: readonly number[]) => ProcessWaits[];
}

/**
 * Samples the run-queue delay of the router's process tree (`pids`: its launcher's processes, each
 * with its descendants) every `everyMs` (50 ms: a span of a request is off by at most one interval's
 * wait at each end), on a timer that does not hold the process open. A late tick only coarsens the
 * timeline: the kernel's counters are cumulative, so nothing accrued between two samples is lost.
 */
export function recordRunQueueDelay(pids: readonly number[], o: RunQueueRecorderOptions = {}): RunQueueRecorder {
  const unavailable =
    pids.length === 0
      ? 'the harness did not start the router, so it has no process to read'
      : schedstatUnavailable(o.proc);
  if (unavailable !== undefined) return { stop: () => ({ unavailable }) };
  const read = o.read ?? createSchedTreeReader(o.proc);
  const now = o.now ?? systemClock.now;
  const everyMs = o.everyMs ?? 50;
  const series = createRunQueueSeries();
  const sample = () => {
    const processes = read(pids);
    series.add({ at: now(), processes });
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = () => {
    sample();
    timer = setTimeout(tick, everyMs);
    timer.unref();
  };
  sample();
  timer = setTimeout(tick, everyMs);
  timer.unref();
  return {
    stop() {
      clearTimeout(timer);
      sample();
      return { delay: series.delay() };
    },
  };
}
