import { replicaName } from './fleet-view.js';
import type { CheckInput } from './types.js';

/** How much of a span a starved machine held things up, in the two places the harness measures it. */
export interface Starvation {
  /** The harness's event loop behind schedule (simulator, load generator, an in-process router). */
  loopMs: number;
  /** The router's process waiting for a CPU (a router the harness started). */
  routerMs: number;
  /**
   * What the two explain together: their sum, taken piece by piece between the router's samples
   * and at most each piece's length (where both were starved at once, the time counts once).
   */
  ms: number;
  /** In a fleet, the replica whose run-queue delay `routerMs` is. */
  replica?: number;
}

/** Whether the run measured either kind of starvation (on the wall clock). */
export function starvationMeasured(input: Pick<CheckInput, 'loopBehindMs' | 'routerWaitMs'>): boolean {
  return input.loopBehindMs !== undefined || input.routerWaitMs !== undefined;
}

/**
 * The starvation between two instants. The two add up: a request travels one way at a time (the
 * client and the simulator on the harness's loop, the router in its own process), so it can wait
 * out the harness's stalls in one place and the router's run-queue delay in another. Where the two
 * overlap in time the request waited in only one of them, so they are added up piece by piece:
 * between two samples of the router's delay (`routerSampledAt`), the loop's stalls and the router's
 * wait in that piece, at most its length. A machine that held both off the CPU at once is then
 * counted once, not twice; within a piece the overlap is unknown, and the sum may still excuse
 * more than the machine cost: it only ever makes a verdict INCONCLUSIVE (never a pass), and each
 * check still fails lateness beyond it. Never more than the span itself. In a fleet, `replica` is
 * the replica that held the request: only its own run-queue delay counts, never another replica's
 * (each runs in processes of its own, and a request waits for none but its replica's).
 */
export function starvationDuring(
  input: Pick<CheckInput, 'loopBehindMs' | 'routerWaitMs' | 'routerSampledAt'>,
  from: number,
  to: number,
  replica?: number,
): Starvation {
  const loop = (a: number, b: number) => input.loopBehindMs?.(a, b) ?? 0;
  const router = (a: number, b: number) => input.routerWaitMs?.(a, b, replica) ?? 0;
  const loopMs = loop(from, to);
  const routerMs = router(from, to);
  const span = Math.max(0, to - from);
  // Only where both were measured can they overlap.
  if (!(loopMs > 0 && routerMs > 0 && input.routerSampledAt))
    return starvation(loopMs, routerMs, Math.min(span, loopMs + routerMs), replica);
  const cuts = input.routerSampledAt(from, to, replica);
  // At most MAX_PIECES pieces: a coarser piece bounds the overlap less tightly, never too low.
  const stride = Math.ceil((cuts.length + 1) / MAX_PIECES);
  let ms = 0;
  let start = from;
  for (let i = stride - 1; i <= cuts.length; i += stride) {
    const end = i < cuts.length ? cuts[i]! : to;
    if (!(end > start)) continue;
    ms += Math.min(end - start, loop(start, end) + router(start, end));
    start = end;
  }
  if (to > start) ms += Math.min(to - start, loop(start, to) + router(start, to));
  return starvation(loopMs, routerMs, Math.min(span, ms), replica);
}

const MAX_PIECES = 64;

function starvation(loopMs: number, routerMs: number, ms: number, replica: number | undefined): Starvation {
  return { loopMs, routerMs, ms, ...(replica !== undefined ? { replica } : {}) };
}

/**
 * `the harness's loop was behind 300 ms` (and `the router waited 200 ms for a CPU`, when it did;
 * `replica 1 waited …` in a fleet; `, 350 ms in all, partly at once` when the two overlapped).
 */
export function starvationWords(s: Starvation): string {
  const loop = `the harness's loop was behind ${Math.round(s.loopMs)} ms`;
  const router = `${s.replica !== undefined ? replicaName(s.replica) : 'the router'} waited ${Math.round(s.routerMs)} ms for a CPU`;
  if (!(Math.round(s.routerMs) > 0)) return loop;
  if (!(Math.round(s.loopMs) > 0)) return router;
  const both = `${loop} and ${router}`;
  return Math.round(s.ms) < Math.round(s.loopMs + s.routerMs)
    ? `${both}, ${Math.round(s.ms)} ms in all, partly at once`
    : both;
}
