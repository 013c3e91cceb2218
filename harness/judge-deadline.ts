/** Wall-clock ms a stopped run's judging may take before long replays stop short. */
export const STOPPED_JUDGING_MS = 1000;

/**
 * When judging a run must give up on long replays: once `signal` has been aborted (the user
 * stopped the run and waits for its report) for `graceMs` of `now`. Judging is synchronous, so a
 * signal that arrives while it runs is seen only after it: this bounds it where it matters.
 */
export function judgeDeadline(
  signal: AbortSignal | undefined,
  now: () => number,
  graceMs = STOPPED_JUDGING_MS,
): (() => boolean) | undefined {
  if (!signal) return undefined;
  let abortedAt = signal.aborted ? now() : undefined;
  if (abortedAt === undefined) signal.addEventListener('abort', () => (abortedAt = now()), { once: true });
  return () => abortedAt !== undefined && now() - abortedAt >= graceMs;
}
