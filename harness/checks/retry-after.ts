import type { LedgerRow } from '../../simulator/index.js';
import { attemptsByRequest } from './attempts-by-request.js';
import { count, groupBy, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';
import { attemptsByScope, deriveWindows, scopeOf, type WaitWindow } from './windows.js';
import { fleetViewOf, replicaName } from './fleet-view.js';
import { couldSendDuring, demandByProvider } from './demand.js';
import { humanDuration } from './human-duration.js';
import { starvationDuring, starvationMeasured, type Starvation } from './starvation.js';

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
 * before the wait ended. A wait starts when the hinted answer left the simulator. At its end a
 * tolerance (10 ms by default) absorbs timer granularity and loopback latency. At its start,
 * other requests' attempts arriving within `inFlightGrace` (50 ms) may have been sent before the
 * router could read the answer (a burst being dispatched) and are forgiven; the same request's
 * next attempt is never forgiven, since the router had read the answer before sending it. Each
 * early attempt counts once, against the wait that ends last among those it broke.
 *
 * When the harness measured its own event-loop lag, the grace grows by its p99: an attempt the
 * router sent in time can be stamped late by a starved simulator. A wait is judged only if the
 * router could have broken it: a client request its provider could serve was open during it (or
 * an attempt did arrive inside it); with none judged, the check is skipped.
 *
 * Another request's early attempt proves nothing when the harness's event loop (shared with the
 * simulator and an in-process router) was behind for all but the in-flight grace of the time from
 * the wait's start to the attempt's arrival: the router may have chosen it before the hint left
 * (the attempt then waited out the stalls on its way). A run whose every early attempt is so
 * explained is INCONCLUSIVE; the request that drew the hint is never excused. A router the harness
 * started may also have been held off a CPU meanwhile (its run-queue delay): an attempt it had
 * chosen waits that out too, so the two together are what the time since the wait began is judged
 * against. In a fleet that is the run-queue delay of the replica that sent the attempt (another
 * replica's starvation never held it); of the whole fleet for an attempt no client request
 * accounts for, since any replica may have sent it.
 */
export function checkRetryAfter(input: CheckInput): CheckResult {
  const { rows, scenario, outcomes, lag } = input;
  const fleet = fleetViewOf(outcomes);
  const { tolerance, scope } = scenario.expect.retryAfter;
  const inFlightGrace = scenario.expect.retryAfter.inFlightGrace + (lag?.loopP99Ms ?? 0);
  const windows = deriveWindows(rows, scope);
  const byScope = attemptsByScope(rows, scope);
  const windowsByScope = groupBy(windows, (w) => w.scope);
  const evidence: Evidence[] = [];
  const found = new Map<number, { a: LedgerRow; w: WaitWindow; by: number }>();
  const flag = (a: LedgerRow, w: WaitWindow) => {
    const by = w.end - a.arrivalAt;
    if (by > (found.get(a.seq)?.by ?? 0)) found.set(a.seq, { a, w, by });
  };
  for (const [key, list] of windowsByScope) {
    list.sort((x, y) => x.start - y.start);
    const attempts = byScope.get(key) ?? [];
    let next = 0;
    let open: WaitWindow | undefined;
    for (const a of attempts) {
      // Sweep: the wait in force at this arrival is the one ending last among those already announced.
      while (next < list.length && list[next]!.start + inFlightGrace <= a.arrivalAt) {
        const w = list[next++]!;
        if (!open || w.end > open.end) open = w;
      }
      if (open && a.seq !== open.seq && a.arrivalAt < open.end - tolerance) flag(a, open);
    }
  }
  // The request that drew the hint, coming back to the same scope early: no grace.
  const byRequest = attemptsByRequest(rows);
  for (const w of windows) {
    if (w.correlationId === null) continue;
    const again = byRequest.get(w.correlationId)?.find((a) => a.seq > w.seq && scopeOf(a, scope) === w.scope);
    if (again && again.arrivalAt < w.end - tolerance) flag(again, w);
  }
  const early = [...found.values()].sort((x, y) => x.a.arrivalAt - y.a.arrivalAt);
  const broken = new Set(early.map((e) => e.w.seq));
  const demand = demandByProvider({ outcomes, scenario });
  const judged = windows.filter(
    (w) => broken.has(w.seq) || couldSendDuring(demand, w, w.start + inFlightGrace, w.end - tolerance),
  ).length;
  const sameRequest = (a: LedgerRow, w: WaitWindow) => a.correlationId !== null && a.correlationId === w.correlationId;
  const graceMs = scenario.expect.retryAfter.inFlightGrace;
  const starvedFor = (a: LedgerRow, w: WaitWindow) =>
    starvationDuring(input, w.start, a.arrivalAt, fleet?.of(a.correlationId));
  const stalled = (a: LedgerRow, w: WaitWindow) =>
    !sameRequest(a, w) && starvationMeasured(input) && a.arrivalAt - w.start - starvedFor(a, w).ms <= graceMs;
  const overloaded = early.length > 0 && early.every(({ a, w }) => stalled(a, w));
  let worst = 0;
  // In a fleet: who sent each early attempt, and whether the wait had been announced to another replica.
  let crossReplica = 0;
  for (const { a, w, by } of early) {
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
        detail: `arrived ${humanDuration(by)} before the end of a ${humanDuration(w.hintMs)} wait announced by attempt #${w.seq} (${w.hintForm})${fleet ? `; sent by ${replicaName(sender)}, the wait was announced to ${replicaName(told)}` : ''}${stalled(a, w) ? `; ${humanDuration(a.arrivalAt - w.start)} after the wait began, ${starvedWords(starvedFor(a, w))}` : ''}`,
      });
  }
  return {
    id: 'retry-after',
    title: 'Waits honour Retry-After',
    meaning:
      'After a provider announced a wait (Retry-After, retry-after-ms, reset headers or a body hint), nothing was sent to that key and model before it ended.',
    verdict: overloaded ? 'inconclusive' : early.length > 0 ? 'fail' : judged === 0 ? 'skip' : 'pass',
    ...(overloaded
      ? {
          reason: early.some(({ a, w }) => starvedFor(a, w).routerMs >= 1)
            ? `machine overloaded: every early attempt was another request's, arriving after the wait began by little more than the harness's event loop was behind and ${fleet ? 'the processes of the replica that sent it' : "the router's process"} waited for a CPU meanwhile (it may have been sent before the hint left)`
            : `harness overloaded: every early attempt was another request's, arriving after the wait began by little more than the harness's event loop was behind meanwhile (it may have been sent before the hint left)`,
        }
      : {}),
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
          : `worst early arrival ${humanDuration(worst)}; ${count(early.length, 'early attempt')} over ${count(judged, 'announced wait')}${judged < windows.length ? ` (of ${windows.length}; the rest had no request the router could have sent)` : ''}${early.length ? `, ${broken.size} broken (${((broken.size / judged) * 100).toFixed(1)} %)` : ''}`,
    value: worst,
    unit: 'ms',
    threshold: `tolerance ${tolerance} ms, in-flight grace ${Math.round(inFlightGrace)} ms${lag?.loopP99Ms ? ` (incl. the harness's lag p99)` : ''}, scope ${scope}`,
    // Another request's early attempt is only as suspect as it came after the in-flight grace: a
    // starved harness (or router) stamps in-flight sends late by about its lag. The stamps come
    // late exactly during the stalls, so when every early attempt is another request's, the
    // longest stall bounds what the lag explains (seen: an attempt 288 ms into a 20 s wait with
    // the loop's p99 at 117 ms and its max at 297 ms). The request that drew the hint read it
    // before coming back: lag never explains that one, and its margin is judged against the p99.
    timing: {
      ...(early.length > 0 && early.every(({ a, w }) => a.correlationId === null || a.correlationId !== w.correlationId)
        ? { lagBound: 'max' as const }
        : {}),
      toleranceMs: tolerance,
      worstMarginMs: Math.max(
        0,
        ...early.map(({ a, w, by }) =>
          a.correlationId !== null && a.correlationId === w.correlationId
            ? by - tolerance
            : Math.min(by - tolerance, a.arrivalAt - w.start - scenario.expect.retryAfter.inFlightGrace),
        ),
      ),
    },
    violations: early.length,
    evidence,
    details: {
      windows: windows.length,
      windowsJudged: judged,
      ...(fleet ? { fleet: { replicas: fleet.replicas, earlyFromAnotherReplica: crossReplica } } : {}),
    },
  };
}
