import { MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

/**
 * Every client request was answered by its deadline plus a tolerance (50 ms by default): a
 * complete answer for plain requests, the response head for streams. A request the client gave
 * up on was not answered at all.
 */
export function checkDeadline({ outcomes, scenario }: CheckInput): CheckResult {
  const tolerance = scenario.expect.deadline.tolerance;
  const evidence: Evidence[] = [];
  let violations = 0;
  let worst = -Infinity;
  for (const o of outcomes) {
    const answeredAt = o.status === 0 ? o.endAt : o.stream ? (o.firstByteAt ?? o.endAt) : o.endAt;
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
              : `answered ${Math.round(late)} ms after its ${o.deadlineMs} ms deadline`,
        });
    }
  }
  return {
    id: 'deadline',
    title: 'Deadlines hold',
    meaning: 'Every request was answered (with content or an error) within its deadline.',
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
