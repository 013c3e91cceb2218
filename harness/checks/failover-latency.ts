import { count, attemptsByRequest, ms, summary, type CheckInput, type CheckResult } from './types.js';

/**
 * For requests that needed more than one attempt and succeeded, the time failing over added (from
 * the first attempt's arrival to the last's), against the latency of requests that did not need
 * it. Fails only against an optional p99 threshold.
 */
export function checkFailoverLatency({ outcomes, rows, scenario }: CheckInput): CheckResult {
  const attempts = attemptsByRequest(rows);
  const added: number[] = [];
  const single: number[] = [];
  const multi: number[] = [];
  for (const o of outcomes) {
    if (o.status !== 200) continue;
    const list = attempts.get(o.id);
    const latency = (o.stream ? (o.firstContentAt ?? o.endAt) : o.endAt) - o.sentAt;
    if (!list || list.length < 2) {
      single.push(latency);
      continue;
    }
    added.push(list[list.length - 1]!.arrivalAt - list[0]!.arrivalAt);
    multi.push(latency);
  }
  const a = summary(added);
  const threshold = scenario.expect.failoverLatency.p99;
  const over = threshold !== undefined && a.p99 !== null && a.p99 > threshold;
  return {
    id: 'failover-latency',
    title: 'Failover latency',
    meaning: 'How much time failing over added to the requests that needed it.',
    verdict: over ? 'fail' : a.count === 0 ? 'skip' : 'pass',
    ...(a.count === 0 ? { reason: 'no request was answered after more than one attempt' } : {}),
    ...(threshold !== undefined && a.p99 !== null
      ? { timing: { toleranceMs: 0, worstMarginMs: a.p99 - threshold } }
      : {}),
    figure:
      a.count === 0
        ? 'no request needed a failover'
        : `${count(a.count, 'request')} failed over: added p50 ${ms(a.p50)}, p90 ${ms(a.p90)}, p99 ${ms(a.p99)}, max ${ms(a.max)}`,
    value: a.p99,
    unit: 'ms (p99 added)',
    threshold: threshold !== undefined ? `p99 ≤ ${threshold} ms` : 'reported only',
    violations: over ? 1 : 0,
    evidence: over ? [{ detail: `p99 added ${ms(a.p99)} exceeds ${threshold} ms` }] : [],
    details: { added: a, latencyWithFailover: summary(multi), latencyWithout: summary(single), addedValues: added },
  };
}
