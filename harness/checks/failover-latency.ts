import { attemptsByRequest } from './attempts-by-request.js';
import { replicaName } from './fleet-view.js';
import { starvationDuring, starvationMeasured, type Starvation } from './starvation.js';
import { count, ms, summary, type CheckInput, type CheckResult } from './types.js';

/**
 * For requests that needed more than one attempt and succeeded, the time failing over added (from
 * the first attempt's arrival to the last's), against the latency of requests that did not need
 * it. Fails only against an optional p99 threshold.
 *
 * That span is the router's own time between attempts, so a starved machine lengthens it ms for
 * ms: the harness's loop behind (the simulator stamps both arrivals) and the router's process
 * waiting for a CPU (in a fleet, the replica that served the request). When the p99 is over the
 * threshold but would not be with each request's starvation during its span taken out, the run
 * cannot tell the router's slowness from the machine's: INCONCLUSIVE. Over it even then: FAIL.
 */
export function checkFailoverLatency(input: CheckInput): CheckResult {
  const { outcomes, rows, scenario } = input;
  const attempts = attemptsByRequest(rows);
  const added: number[] = [];
  const spans: { from: number; to: number; replica: number | undefined }[] = [];
  const single: number[] = [];
  const multi: number[] = [];
  for (const o of outcomes) {
    if (o.status !== 200) continue;
    const id = o.id;
    const latency = (o.stream ? (o.firstContentAt ?? o.endAt) : o.endAt) - o.sentAt;
    if (attempts.count(id) < 2) {
      single.push(latency);
      continue;
    }
    const from = attempts.first(id)!.arrivalAt;
    const to = attempts.last(id)!.arrivalAt;
    added.push(to - from);
    spans.push({ from, to, replica: o.replica });
    multi.push(latency);
  }
  const a = summary(added);
  const threshold = scenario.expect.failoverLatency.p99;
  const over = threshold !== undefined && a.p99 !== null && a.p99 > threshold;
  const starved: Starvation[] =
    over && starvationMeasured(input) ? spans.map((s) => starvationDuring(input, s.from, s.to, s.replica)) : [];
  const net = summary(added.map((v, i) => v - (starved[i]?.ms ?? 0)));
  const overloaded = over && starved.length > 0 && net.p99 !== null && net.p99 <= threshold;
  const worstLoop = Math.max(0, ...starved.map((s) => s.loopMs));
  const worstRouter = Math.max(0, ...starved.map((s) => s.routerMs));
  // In a fleet, name the replica whose processes waited longest.
  const mostStarved = starved.find((s) => s.routerMs === worstRouter);
  const whoWaited =
    mostStarved?.replica !== undefined
      ? `the processes of ${replicaName(mostStarved.replica)}`
      : "the router's process";
  // A part that rounds to nothing is left out (the loop's stays when the router's is nothing).
  const starvedParts = [
    ...(Math.round(worstLoop) > 0 || !(Math.round(worstRouter) > 0)
      ? [`the harness's event loop behind up to ${Math.round(worstLoop)} ms`]
      : []),
    ...(Math.round(worstRouter) > 0 ? [`${whoWaited} waiting up to ${Math.round(worstRouter)} ms for a CPU`] : []),
  ];
  return {
    id: 'failover-latency',
    title: 'Failover latency',
    meaning: 'How much time failing over added to the requests that needed it.',
    verdict: over ? (overloaded ? 'inconclusive' : 'fail') : a.count === 0 ? 'skip' : 'pass',
    ...(a.count === 0 ? { reason: 'no request was answered after more than one attempt' } : {}),
    ...(overloaded
      ? {
          reason: `${Math.round(worstRouter) > 0 ? 'machine' : 'harness'} overloaded: with the starvation during each request's failover taken out (${starvedParts.join(', ')}), the p99 added would be ${ms(net.p99)}, within the threshold`,
        }
      : {}),
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
    details: {
      added: a,
      ...(starved.length > 0 ? { addedLessStarvation: net } : {}),
      latencyWithFailover: summary(multi),
      latencyWithout: summary(single),
      addedValues: added,
    },
  };
}
