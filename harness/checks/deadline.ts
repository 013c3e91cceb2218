import { MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

/**
 * Every client request was answered by its deadline plus a tolerance (50 ms by default): judged at
 * the last byte, for streams too (a head in time followed by a stream that runs past the deadline
 * keeps the client waiting all the same). A request the client gave up on was not answered at all.
 */
export function checkDeadline({ outcomes, scenario }: CheckInput): CheckResult {
  const tolerance = scenario.expect.deadline.tolerance;
  const evidence: Evidence[] = [];
  let violations = 0;
  let worst = -Infinity;
  for (const o of outcomes) {
    const answeredAt = o.endAt;
    const late = answeredAt - o.sentAt - o.deadlineMs;
    worst = Math.max(worst, late);
    if (o.status === 0 || late > tolerance) {
      violations++;
      if (evidence.length < MAX_EVIDENCE)
        evidence.push({
          at: answeredAt,
          correlationId: o.id,
          detail:
            o.status === 0
              ? `no answer within ${o.deadlineMs} ms (${o.error})`
              : o.stream && o.firstByteAt !== null && o.firstByteAt - o.sentAt - o.deadlineMs <= tolerance
                ? `stream began in time (head after ${Math.round(o.firstByteAt - o.sentAt)} ms) but its last byte came ${Math.round(late)} ms after its ${o.deadlineMs} ms deadline`
                : `answered ${Math.round(late)} ms after its ${o.deadlineMs} ms deadline`,
        });
    }
  }
  return {
    id: 'deadline',
    title: 'Deadlines hold',
    meaning:
      'Every request was answered in full (with content or an error; a stream to its last byte) within its deadline.',
    verdict: violations === 0 ? 'pass' : 'fail',
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
