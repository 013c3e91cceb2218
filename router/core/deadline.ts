/** One wall-clock deadline for a whole request, all attempts and waits included. */
export interface Deadline {
  /** Epoch ms. */
  readonly at: number;
  readonly startedAt: number;
}

/** A deadline `budgetMs` after `now`. */
export function createDeadline(now: number, budgetMs: number): Deadline {
  return { at: now + budgetMs, startedAt: now };
}

/** Milliseconds left at `now`, never negative. */
export function remainingMs(d: Deadline, now: number): number {
  return Math.max(0, d.at - now);
}

/** Whether waiting `waitMs` still leaves `minAttemptMs` for an attempt before the deadline. */
export function waitFits(d: Deadline, now: number, waitMs: number, minAttemptMs: number): boolean {
  return now + waitMs + minAttemptMs <= d.at;
}
