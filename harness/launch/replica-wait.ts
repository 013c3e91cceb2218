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
  const { delay, replicas } = recorded;
  return (from, to, replica) => {
    const own = replica !== undefined && replicas.length > 1 ? replicas[replica] : undefined;
    return (own ?? delay).delayMs(from, to);
  };
}
