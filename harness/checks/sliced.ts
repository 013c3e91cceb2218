/**
 * A long computation cut into slices: each `yield` ends one. Resumed with `true` it is asked to
 * stop short (the run was stopped and its user waits for the report) and returns what it has;
 * with `false` (or nothing) it goes on. The work itself stays pure and synchronous: only its
 * driver decides whether the event loop runs between slices.
 */
export type Sliced<T> = Generator<void, T, boolean | undefined>;

/** Runs `work` to its end at once, asking `giveUp` at each slice's end (the synchronous judge). */
export function finishSliced<T>(work: Sliced<T>, giveUp?: () => boolean): T {
  let step = work.next();
  while (!step.done) step = work.next(giveUp?.() === true);
  return step.value;
}

/** Wall ms of work between two turns of the event loop: a signal is seen within about this long. */
export const SLICE_MS = 20;

/**
 * Runs `work` giving the event loop a turn (`setImmediate`) whenever a slice ran `sliceMs` of
 * `now` (a monotonic wall clock): signals, timers and I/O are served while it judges, and
 * `giveUp`, asked at each slice's end, may become true meanwhile. Same answer as `finishSliced`.
 */
export async function driveSliced<T>(
  work: Sliced<T>,
  o: { now: () => number; giveUp?: () => boolean; sliceMs?: number },
): Promise<T> {
  const sliceMs = o.sliceMs ?? SLICE_MS;
  let from = o.now();
  let step = work.next();
  while (!step.done) {
    if (o.now() - from >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      from = o.now();
    }
    step = work.next(o.giveUp?.() === true);
  }
  return step.value;
}
