import type { CheckInput } from './types.js';

/** How much of a span a starved machine held things up, in the two places the harness measures it. */
export interface Starvation {
  /** The harness's event loop behind schedule (simulator, load generator, an in-process router). */
  loopMs: number;
  /** The router's process waiting for a CPU (a router the harness started). */
  routerMs: number;
  /** What the two explain together: their sum, at most the span. */
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
 * overlap in time the request waited in only one of them, so the sum can excuse more than the
 * machine cost: it only ever makes a verdict INCONCLUSIVE (never a pass), and each check still
 * fails lateness beyond it. Never more than the span itself. In a fleet, `replica` is the replica
 * that held the request: only its own run-queue delay counts, never another replica's (each runs
 * in processes of its own, and a request waits for none but its replica's).
 */
export function starvationDuring(
  input: Pick<CheckInput, 'loopBehindMs' | 'routerWaitMs'>,
  from: number,
  to: number,
  replica?: number,
): Starvation {
  const loopMs = input.loopBehindMs?.(from, to) ?? 0;
  const routerMs = input.routerWaitMs?.(from, to, replica) ?? 0;
  return {
    loopMs,
    routerMs,
    ms: Math.min(Math.max(0, to - from), loopMs + routerMs),
    ...(replica !== undefined ? { replica } : {}),
  };
}

/**
 * `the harness's loop was behind 300 ms` (and `the router waited 200 ms for a CPU`, when it did;
 * `replica 1 waited …` in a fleet).
 */
export function starvationWords(s: Starvation): string {
  const loop = `the harness's loop was behind ${Math.round(s.loopMs)} ms`;
  const router = `${s.replica !== undefined ? `replica ${s.replica}` : 'the router'} waited ${Math.round(s.routerMs)} ms for a CPU`;
  return Math.round(s.routerMs) > 0 ? (Math.round(s.loopMs) > 0 ? `${loop} and ${router}` : router) : loop;
}
