import { count, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';
import { attemptsByScope, deriveWindows, firstArrivalAtOrAfter, mergeWaits } from './windows.js';
import { fleetViewOf, replicaName } from './fleet-view.js';

/**
 * When a scope's announced waits end (overlapping waits count as one period), the attempts that
 * arrive before the first post-wait answer (the herd) must be exactly one: a single probe, not the
 * whole queue released at once.
 */
export function checkSingleProbe({ rows, scenario, outcomes }: CheckInput): CheckResult {
  const fleet = fleetViewOf(outcomes);
  let herdsFromSeveralReplicas = 0;
  const { tolerance, scope } = scenario.expect.retryAfter;
  const periods = mergeWaits(deriveWindows(rows, scope));
  const byScope = attemptsByScope(rows, scope);
  const evidence: Evidence[] = [];
  let judged = 0;
  let violations = 0;
  let largest = 0;
  for (const p of periods) {
    const list = byScope.get(p.scope) ?? [];
    const from = firstArrivalAtOrAfter(list, p.end - tolerance);
    if (from >= list.length) continue;
    let firstAnswer = Infinity;
    let herd = 0;
    const senders = new Set<number | undefined>();
    for (let i = from; i < list.length && list[i]!.arrivalAt < firstAnswer; i++) {
      const a = list[i]!;
      herd++;
      senders.add(fleet?.of(a.correlationId));
      firstAnswer = Math.min(firstAnswer, a.firstByteAt ?? a.endAt ?? Infinity);
    }
    if (fleet && senders.size > 1) herdsFromSeveralReplicas++;
    judged++;
    largest = Math.max(largest, herd);
    if (herd > 1) {
      violations++;
      const w = p.last;
      if (evidence.length < MAX_EVIDENCE)
        evidence.push({
          at: p.end,
          provider: w.provider,
          key: w.key,
          model: w.model,
          detail: `${herd} attempts arrived when the ${Math.round(w.hintMs)} ms wait of attempt #${w.seq} ended, before any of them was answered${fleet ? ` (from ${[...senders].map(replicaName).sort().join(', ')})` : ''}`,
        });
    }
  }
  return {
    id: 'single-probe',
    title: 'One probe when a wait ends',
    meaning: 'When a rate-limit window ended, exactly one request tested the provider before the rest followed.',
    verdict: violations === 0 ? 'pass' : 'fail',
    figure:
      judged === 0
        ? 'no wait ended with traffic after it'
        : `largest herd ${largest} over ${count(judged, 'wait end')}`,
    value: largest,
    unit: 'attempts',
    threshold: 'at most 1',
    violations,
    evidence,
    details: {
      waitEndsJudged: judged,
      ...(fleet ? { fleet: { replicas: fleet.replicas, herdsFromSeveralReplicas } } : {}),
    },
  };
}
