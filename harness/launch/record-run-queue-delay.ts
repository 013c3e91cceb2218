import { systemClock } from '../../simulator/index.js';
import { createSchedTreeReader, schedstatUnavailable } from './read-sched-tree.js';
import { createRunQueueSeries, type ProcessWaits, type RunQueueDelay } from './run-queue-delay.js';

/**
 * What the recorder gathered: the timeline of the whole router (every replica's processes together)
 * and one per replica (in the order of the trees it was given), or why there is none.
 */
export type RouterRunQueue = { delay: RunQueueDelay; replicas: RunQueueDelay[] } | { unavailable: string };

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
 * Samples the run-queue delay of the router's process trees every `everyMs` (50 ms: a span of a
 * request is off by at most one interval's wait at each end), on a timer that does not hold the
 * process open. `trees` holds one list of root pids per replica (a single router: one list, its
 * launcher's processes), each read with its descendants. A fleet's replicas are timed apart, so
 * that one starved replica explains only the requests it served, and together (the whole fleet),
 * for the report and for attempts no replica accounts for. A late tick only coarsens the
 * timelines: the kernel's counters are cumulative, so nothing accrued between two samples is lost.
 */
export function recordRunQueueDelay(
  trees: readonly (readonly number[])[],
  o: RunQueueRecorderOptions = {},
): RunQueueRecorder {
  const unavailable = trees.every((t) => t.length === 0)
    ? 'the harness did not start the router, so it has no process to read'
    : schedstatUnavailable(o.proc);
  if (unavailable !== undefined) return { stop: () => ({ unavailable }) };
  const now = o.now ?? systemClock.now;
  const read = o.read ?? createSchedTreeReader(o.proc, { now });
  const everyMs = o.everyMs ?? 50;
  const whole = createRunQueueSeries();
  const replicas = trees.map(() => createRunQueueSeries());
  const sample = () => {
    const perReplica = trees.map((t) => read(t));
    const at = now();
    perReplica.forEach((processes, i) => replicas[i]!.add({ at, processes }));
    whole.add({ at, processes: perReplica.flat() });
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
      return { delay: whole.delay(), replicas: replicas.map((s) => s.delay()) };
    },
  };
}
