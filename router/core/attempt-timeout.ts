/** How many times its usual duration an attempt is given before the router may cut it to fail over. */
export const USUAL_DURATION_FACTOR = 8;

/** What bounds one attempt. */
export interface AttemptTimeoutFacts {
  /** The configured attempt timeout (`attempt.timeout`). */
  timeoutMs: number;
  /** Time left before the request's deadline. */
  remainingMs: number;
  /** How long attempts to this target usually take to the point that cannot be failed over from (undefined: never measured). */
  usualMs: number | undefined;
  /** Whether another target could still take the request if this attempt is given up. */
  canFailOver: boolean;
}

/**
 * How long one attempt may run before it is given up: the attempt timeout, cut to the time left,
 * and, where another target could take the request, cut again to leave room to fail over: an
 * attempt that hangs must not take the whole deadline with it (a provider hanging before its
 * headers otherwise costs every request sent there). The cut is never below eight times what the
 * target usually takes, nor below half the time left, so a slow answer on its way is not given up
 * for a failover that would be no faster; with nothing measured, or nowhere to fail over to,
 * nothing is cut.
 */
export function attemptTimeoutMs(f: AttemptTimeoutFacts): number {
  const budget = Math.min(f.timeoutMs, f.remainingMs);
  if (!f.canFailOver || f.usualMs === undefined) return budget;
  return Math.min(budget, Math.max(USUAL_DURATION_FACTOR * f.usualMs, f.remainingMs / 2));
}
