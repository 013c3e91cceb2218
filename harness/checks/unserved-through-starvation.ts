import { streamCompleted } from '../load/client-outcome.js';
import { starvationDuring, starvationMeasured } from './starvation.js';
import type { CheckInput } from './types.js';

/**
 * The unserved requests a starved machine may have cost the router, for `goodput`. One the
 * harness's loop (shared with the simulator and an in-process router) was stalled for a tenth of
 * its deadline or more lost that much of the time the router had for it, and so did one whose
 * router process waited that long for a CPU (the two add up: see `starvationDuring`); in a fleet
 * only the replica that held the request counts, never a starved neighbour. On a calm machine no
 * request is excused.
 *
 * One that ended past its deadline (a client that gave up, an answer after it) must also have
 * starved for as long as it was late, as `deadline` judges it: otherwise it would have been late on
 * a calm machine too (a hung provider the router had no timeout for), and the run would hold it
 * against the router in one check and excuse it in the other.
 */
export function unservedThroughStarvation(
  input: Pick<CheckInput, 'outcomes' | 'loopBehindMs' | 'routerWaitMs' | 'routerSampledAt' | 'scenario'>,
  /** The eligible requests, as indices into `input.outcomes`. */
  eligible: readonly number[],
): { count: number; routerWaited: boolean } {
  if (!starvationMeasured(input)) return { count: 0, routerWaited: false };
  const tolerance = input.scenario.expect.deadline.tolerance;
  let routerWaited = false;
  const count = eligible.filter((i) => {
    const o = input.outcomes[i]!;
    if (o.status === 200 && (!o.stream || streamCompleted(o))) return false;
    const s = starvationDuring(input, o.sentAt, o.endAt, o.replica);
    if (s.ms < o.deadlineMs / 10) return false;
    const late = o.endAt - o.sentAt - o.deadlineMs;
    if (late > tolerance && late - tolerance > s.ms) return false;
    routerWaited ||= s.routerMs >= 1;
    return true;
  }).length;
  return { count, routerWaited };
}
