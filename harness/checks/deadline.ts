import { starvationDuring, starvationWords } from './starvation.js';
import { MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

/**
 * Every client request was answered by its deadline plus a tolerance (50 ms by default): judged at
 * the last byte, for streams too (a head in time followed by a stream that runs past the deadline
 * keeps the client waiting all the same). A request the client gave up on was not answered at all.
 *
 * Lateness the machine could have caused is not the router's: when the harness's event loop
 * (which the simulator, the load generator and a router run in process share) was behind schedule
 * during a late request's life by more than the request was late (past the tolerance), that
 * request proves nothing. A run whose every violation is so explained is INCONCLUSIVE, saying by
 * how much the loop was behind; one late request beyond what its stalls explain fails the run.
 * (Per request, not the loop's p99 or longest stall: a request crosses the loop many times, from
 * the client's send through the router to the simulator and back, and waits out a stall at each.)
 * A router the harness started runs in its own process: the time it waited for a CPU during the
 * request's life (its run-queue delay) explains lateness the same way, added to the loop's stalls.
 * In a fleet only the replica that served the request counts: another replica's starvation never
 * held it up.
 */
export function checkDeadline(input: CheckInput): CheckResult {
  const { outcomes, scenario } = input;
  const tolerance = scenario.expect.deadline.tolerance;
  const evidence: Evidence[] = [];
  let violations = 0;
  let unexplained = 0;
  let worst = -Infinity;
  let worstBehind = 0;
  let worstRouterWait = 0;
  const fleet = outcomes.some((o) => o.replica !== undefined);
  for (const o of outcomes) {
    const answeredAt = o.endAt;
    const late = answeredAt - o.sentAt - o.deadlineMs;
    worst = Math.max(worst, late);
    if (o.status === 0 || late > tolerance) {
      violations++;
      // A request that failed locally (not a client timeout) is never the loop's doing.
      const timing = o.status !== 0 || o.error === 'client-timeout';
      const starved = timing ? starvationDuring(input, o.sentAt, answeredAt, o.replica) : undefined;
      const behind = starved?.ms ?? 0;
      worstBehind = Math.max(worstBehind, starved?.loopMs ?? 0);
      worstRouterWait = Math.max(worstRouterWait, starved?.routerMs ?? 0);
      if (!(behind > tolerance && late - tolerance <= behind)) unexplained++;
      const meanwhile = behind > tolerance ? `; ${starvationWords(starved!)} meanwhile` : '';
      if (evidence.length < MAX_EVIDENCE)
        evidence.push({
          at: answeredAt,
          correlationId: o.id,
          detail:
            (o.status === 0
              ? `no answer within ${o.deadlineMs} ms (${o.error})`
              : o.stream && o.firstByteAt !== null && o.firstByteAt - o.sentAt - o.deadlineMs <= tolerance
                ? `stream began in time (head after ${Math.round(o.firstByteAt - o.sentAt)} ms) but its last byte came ${Math.round(late)} ms after its ${o.deadlineMs} ms deadline`
                : `answered ${Math.round(late)} ms after its ${o.deadlineMs} ms deadline`) + meanwhile,
        });
    }
  }
  const overloaded = violations > 0 && unexplained === 0;
  return {
    id: 'deadline',
    title: 'Deadlines hold',
    meaning:
      'Every request was answered in full (with content or an error; a stream to its last byte) within its deadline.',
    verdict: violations === 0 ? 'pass' : overloaded ? 'inconclusive' : 'fail',
    ...(overloaded
      ? {
          reason:
            Math.round(worstRouterWait) > 0
              ? `machine overloaded: during the late requests the harness's event loop was behind by up to ${Math.round(worstBehind)} ms and ${fleet ? 'the processes of the replica that served each of them' : "the router's process"} waited up to ${Math.round(worstRouterWait)} ms for a CPU (runnable, not scheduled), and every one of them was late by less than the two together during its life`
              : `harness overloaded: its event loop (the simulator's, the load generator's and an in-process router's) was behind by up to ${Math.round(worstBehind)} ms during the late requests, and every one of them was late by less than the loop was behind during its life`,
        }
      : {}),
    figure:
      outcomes.length === 0
        ? 'no requests'
        : violations === 0
          ? `all ${outcomes.length} answered in time (closest: ${Math.round(-worst)} ms to spare)`
          : `${violations} of ${outcomes.length} late; worst ${Math.round(worst)} ms past the deadline`,
    value: Number.isFinite(worst) ? worst : null,
    unit: 'ms past deadline',
    threshold: `tolerance ${tolerance} ms`,
    ...(Number.isFinite(worst) ? { timing: { toleranceMs: tolerance, worstMarginMs: worst - tolerance } } : {}),
    violations,
    evidence,
  };
}
