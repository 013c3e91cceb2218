import type { CheckInput } from './types.js';

/** How much of a span a starved machine held things up, in the two places the harness measures it. */
export interface Starvation {
  /** The harness's event loop behind schedule (simulator, load generator, an in-process router). */
  loopMs: number;
  /** The router's process waiting for a CPU (a router the harness started). */
  routerMs: number;
  /** What the two explain together: their sum, at most the span. */
  ms: number;
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
 * fails lateness beyond it. Never more than the span itself.
 */
export function starvationDuring(
  input: Pick<CheckInput, 'loopBehindMs' | 'routerWaitMs'>,
  from: number,
  to: number,
): Starvation {
  const loopMs = input.loopBehindMs?.(from, to) ?? 0;
  const routerMs = input.routerWaitMs?.(from, to) ?? 0;
  return { loopMs, routerMs, ms: Math.min(Math.max(0, to - from), loopMs + routerMs) };
}

/** `the harness's loop was behind 300 ms` (and `the router waited 200 ms for a CPU`, when it did). */
export function starvationWords(s: Starvation): string {
  const loop = `the harness's loop was behind ${Math.round(s.loopMs)} ms`;
  const router = `the router waited ${Math.round(s.routerMs)} ms for a CPU`;
  return Math.round(s.routerMs) > 0 ? (Math.round(s.loopMs) > 0 ? `${loop} and ${router}` : router) : loop;
}
