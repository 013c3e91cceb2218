import { count, groupBy, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';
import { attemptsByScope, deriveWindows, firstArrivalAtOrAfter, mergeWaits, scopeOf } from './windows.js';
import { findEarlyAttempts } from './early-attempts.js';
import { fleetViewOf, replicaName } from './fleet-view.js';

/**
 * When a scope's announced waits end (overlapping waits count as one period), the attempts that
 * arrive before the first post-wait answer (the herd) must be exactly one: a single probe, not the
 * whole queue released at once. Judged only where the scope was quiet during the wait (no attempt
 * that retry-after counts as sent into it; an in-flight race is no sign the router ignored the
 * wait, `findEarlyAttempts`): a router that kept sending through it never paused, so there is no
 * release to judge (retry-after judges that); with no quiet wait end the check is skipped.
 *
 * The router's run-queue delay is deliberately no excuse here (unlike deadline, retry-after,
 * goodput and failover-latency). Who is in the herd is decided by the simulator's stamps alone:
 * attempts that arrived before the first answer's head left. A router that holds the rest until
 * its probe is answered cannot join the herd by being starved: it only sends later, never before
 * an answer it has not read. A router that releases on timers alone sends the same herd starved
 * or not (starvation at most bunches its timers): excusing it on a busy machine would blind the
 * check where it matters. The stamps' own lateness is the harness's loop, which the lag rule
 * (`timing`, see `discountHarnessLag`) already allows for. What remains is a time-bounded probe
 * lease (a fleet's claim in its store) lapsing while its holder is starved for longer than the
 * lease, so that a second replica probes too: the provider then did get two probes, as it would
 * from a production host that paused the process; that is the lease's weakness, not a false FAIL.
 */
export function checkSingleProbe(input: CheckInput): CheckResult {
  const { rows, scenario, outcomes } = input;
  const fleet = fleetViewOf(outcomes);
  let herdsFromSeveralReplicas = 0;
  const { tolerance, scope, inFlightGrace } = scenario.expect.retryAfter;
  const windows = deriveWindows(rows, scope);
  const periods = mergeWaits(windows);
  const byScope = attemptsByScope(rows, scope);
  // What retry-after counts as sent into a wait (in-flight races left out), by scope in arrival order.
  const { violations: early } = findEarlyAttempts(
    input,
    groupBy(windows, (w) => w.scope),
    byScope,
    { toleranceMs: tolerance, fleetGraceMs: inFlightGrace, fleet },
  );
  const earlyByScope = groupBy(
    early.map((e) => e.a),
    (a) => scopeOf(a, scope),
  );
  const evidence: Evidence[] = [];
  let judged = 0;
  let violations = 0;
  let largest = 0;
  let notPaused = 0;
  let worstMargin = 0;
  for (const p of periods) {
    const list = byScope.get(p.scope) ?? [];
    const from = firstArrivalAtOrAfter(list, p.end - tolerance);
    if (from >= list.length) continue;
    const sent = earlyByScope.get(p.scope) ?? [];
    const i = firstArrivalAtOrAfter(sent, p.start);
    if (i < sent.length && sent[i]!.arrivalAt < p.end - tolerance) {
      notPaused++;
      continue;
    }
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
      worstMargin = Math.max(worstMargin, firstAnswer - list[from + 1]!.arrivalAt);
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
    verdict: violations > 0 ? 'fail' : judged === 0 ? 'skip' : 'pass',
    ...(judged === 0
      ? {
          reason:
            notPaused > 0
              ? 'router did not pause; see retry-after'
              : periods.length === 0
                ? 'no provider announced a wait'
                : 'no wait ended with traffic after it',
        }
      : {}),
    figure:
      judged === 0
        ? notPaused > 0
          ? `router did not pause: traffic went on during ${count(notPaused, 'wait')}`
          : 'no wait ended with traffic after it'
        : `largest herd ${largest} over ${count(judged, 'quiet wait end')}${notPaused ? ` (${notPaused} more not judged: the router kept sending during the wait)` : ''}`,
    value: largest,
    unit: 'attempts',
    threshold: 'at most 1',
    timing: { toleranceMs: tolerance, worstMarginMs: worstMargin },
    violations,
    evidence,
    details: {
      waitEndsJudged: judged,
      waitEndsNotPaused: notPaused,
      ...(fleet ? { fleet: { replicas: fleet.replicas, herdsFromSeveralReplicas } } : {}),
    },
  };
}
