/**
 * How long after its deadline a client gives up on a request (the deadline check still fails it),
 * on the wall clock and in simulated time alike.
 */
export function clientGraceMs(deadlineMs: number): number {
  return Math.max(2000, deadlineMs / 2);
}
