import { count, groupBy, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';
import { attemptsByScope, deriveWindows } from './windows.js';
import { fleetViewOf, replicaName } from './fleet-view.js';
import { couldSendDuring, demandByProvider } from './demand.js';
import { findEarlyAttempts, marginOf, type RaceRule } from './early-attempts.js';
import { humanDuration } from './human-duration.js';
import { widenToOrganisations } from './org-waits.js';
import { starvationMeasured, type Starvation } from './starvation.js';

/**
 * `1880 ms of which the harness's loop was behind` (and `, 300 ms the router waited for a CPU`); a
 * part that rounds to nothing is left out.
 */
function starvedWords(s: Starvation): string {
  const who = s.replica !== undefined ? replicaName(s.replica) : 'the router';
  const parts = [
    ...(Math.round(s.loopMs) > 0 ? [`${humanDuration(s.loopMs)} of which the harness's loop was behind`] : []),
    ...(Math.round(s.routerMs) > 0 ? [`${humanDuration(s.routerMs)} ${who} waited for a CPU`] : []),
  ];
  return parts.length > 0 ? parts.join(', ') : 'with neither the harness nor the router starved meanwhile';
}

/**
 * Once a provider announced a wait, no attempt on that scope (key and model, or key) arrived
 * before the wait ended. A wait starts when the hinted answer left the simulator; at its end a
 * tolerance (10 ms by default) absorbs timer granularity and loopback latency. Each early attempt
 * counts once, against the wait it broke by the most.
 *
 * An attempt already in flight when the hint reached the router is a race, not a violation
 * (`findEarlyAttempts`): another request's attempt that arrived after the hint's bytes left by no
 * more than the tolerance plus what the machine held things up meanwhile (the harness's event
 * loop behind, the router's processes waiting for a CPU, both measured on the wall clock; nothing
 * in simulated time), plus, in a fleet, the news's propagation bound (`inFlightGrace`) for an
 * attempt another replica sent than the one told. No fixed grace forgives an attempt deep in a
 * wait, and the request that drew the hint is never forgiven. A wait the provider announced for
 * an organisation covers its other keys too (`widenToOrganisations`). Races are counted in the figure and
 * never fail the check. A wait is judged only if the router could have broken it: a client request
 * its provider could serve was open during it (or an attempt did arrive inside it); with none
 * judged, the check is skipped.
 */
export function checkRetryAfter(input: CheckInput): CheckResult {
  const { rows, scenario, outcomes } = input;
  const fleet = fleetViewOf(outcomes);
  const { tolerance, scope, inFlightGrace } = scenario.expect.retryAfter;
  const rule: RaceRule = { toleranceMs: tolerance, fleetGraceMs: inFlightGrace, fleet };
  const windows = deriveWindows(rows, scope);
  const { violations: early, races } = findEarlyAttempts(
    input,
    groupBy(widenToOrganisations(windows, scenario, scope), (w) => w.scope),
    attemptsByScope(rows, scope),
    rule,
  );
  const broken = new Set(early.map((e) => e.w.seq));
  const demand = demandByProvider({ outcomes, scenario });
  const judged = windows.filter(
    (w) => broken.has(w.seq) || couldSendDuring(demand, w, w.start + tolerance, w.end - tolerance),
  ).length;
  const evidence: Evidence[] = [];
  const measured = starvationMeasured(input);
  let worst = 0;
  // In a fleet: who sent each early attempt, and whether the wait had been announced to another replica.
  let crossReplica = 0;
  for (const e of early) {
    const { a, w, by } = e;
    worst = Math.max(worst, by);
    const sender = fleet?.of(a.correlationId);
    const told = fleet?.of(w.correlationId);
    if (fleet && sender !== told) crossReplica++;
    if (evidence.length < MAX_EVIDENCE)
      evidence.push({
        at: a.arrivalAt,
        correlationId: a.correlationId,
        provider: a.provider,
        key: a.key,
        model: a.model,
        detail: `arrived ${humanDuration(by)} before the end of a ${humanDuration(w.hintMs)} wait announced by attempt #${w.seq} (${w.hintForm})${w.sibling !== undefined ? ` on key ${w.key} for organisation ${w.org}, which key ${w.sibling} shares` : ''}${e.sameRequest ? ', by the request that drew it' : ''}${fleet ? `; sent by ${replicaName(sender)}, the wait was announced to ${replicaName(told)}` : ''}; ${humanDuration(e.into)} into it${measured ? `, ${starvedWords(e.starved)}` : ''}`,
      });
  }
  const raceWords = races.length
    ? `; ${count(races.length, 'in-flight race')} not counted (sent before the hint could reach the router)`
    : '';
  return {
    id: 'retry-after',
    title: 'Waits honour Retry-After',
    meaning:
      "After a provider announced a wait (Retry-After, retry-after-ms, reset headers or a body hint), nothing was sent to that key and model (or, where the limit is an organisation's, to its other keys) before it ended.",
    verdict: early.length > 0 ? 'fail' : judged === 0 ? 'skip' : 'pass',
    ...(early.length === 0 && judged === 0
      ? {
          reason:
            windows.length === 0
              ? 'no provider announced a wait'
              : `no client request the router could have sent was open during any of the ${count(windows.length, 'announced wait')}`,
        }
      : {}),
    figure:
      windows.length === 0
        ? 'no waits were announced'
        : judged === 0
          ? `${count(windows.length, 'announced wait')}, none with a request the router could have sent inside it`
          : `worst early arrival ${humanDuration(worst)}; ${count(early.length, 'early attempt')} over ${count(judged, 'announced wait')}${judged < windows.length ? ` (of ${windows.length}; the rest had no request the router could have sent)` : ''}${early.length ? `, ${broken.size} broken (${((broken.size / judged) * 100).toFixed(1)} %)` : ''}${raceWords}`,
    value: worst,
    unit: 'ms',
    threshold: `tolerance ${tolerance} ms; in-flight races told apart by the measured stalls${fleet ? `, plus ${inFlightGrace} ms for news to reach another replica` : ''}; scope ${scope}`,
    // A starved harness stamps arrivals late by about its lag: a violation within it is
    // INCONCLUSIVE (see discountHarnessLag). The stamps come late exactly during the stalls, so when
    // every early attempt is another request's the longest stall bounds what the lag explains. The
    // request that drew the hint read it before coming back: its margin is judged against the p99.
    timing: {
      ...(early.length > 0 && early.every((e) => !e.sameRequest) ? { lagBound: 'max' as const } : {}),
      toleranceMs: tolerance,
      worstMarginMs: Math.max(0, ...early.map((e) => marginOf(e, rule))),
    },
    violations: early.length,
    evidence,
    details: {
      windows: windows.length,
      windowsJudged: judged,
      races: races.length,
      ...(fleet ? { fleet: { replicas: fleet.replicas, earlyFromAnotherReplica: crossReplica } } : {}),
    },
  };
}
