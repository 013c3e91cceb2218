import type { RunQueueDelay } from './run-queue-delay.js';

/**
 * The router's run-queue delay between two instants as the checks ask for it: a fleet's replica's
 * own when `replica` names one the recorder timed apart, else the whole router's (a single router,
 * or an attempt no replica accounts for). One replica's starvation never excuses a request another
 * replica held: each replica's processes are sampled on their own.
 */
export function replicaWait(recorded: {
  delay: RunQueueDelay;
  replicas: readonly RunQueueDelay[];
}): (from: number, to: number, replica?: number) => number {
  const timeline = timelineOf(recorded);
  return (from, to, replica) => timeline(replica).delayMs(from, to);
}

/** The instants between two at which `replicaWait`'s timeline for `replica` was sampled. */
export function replicaSampledAt(recorded: {
  delay: RunQueueDelay;
  replicas: readonly RunQueueDelay[];
}): (from: number, to: number, replica?: number) => number[] {
  const timeline = timelineOf(recorded);
  return (from, to, replica) => timeline(replica).sampledAt(from, to);
}

function timelineOf({ delay, replicas }: { delay: RunQueueDelay; replicas: readonly RunQueueDelay[] }) {
  return (replica: number | undefined): RunQueueDelay =>
    (replica !== undefined && replicas.length > 1 ? replicas[replica] : undefined) ?? delay;
}
