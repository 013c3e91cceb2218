import type { LedgerRow } from '../../simulator/index.js';
import type { FleetView } from './fleet-view.js';
import { starvationDuring, type Starvation } from './starvation.js';
import type { CheckInput } from './types.js';
import type { WaitWindow } from './windows.js';

/** An attempt that reached a scope inside a wait announced there. */
export interface EarlyAttempt {
  a: LedgerRow;
  w: WaitWindow;
  /** How long before the wait's end it arrived, ms. */
  by: number;
  /** ms from the wait's start (the hint's bytes leaving) to the attempt's arrival. */
  into: number;
  /** What held things up between the two. */
  starved: Starvation;
  /** What may explain its arriving `into` the wait: the starvation, and a fleet's propagation bound. */
  excusedMs: number;
  /** It was the request that drew the hint (which read it before coming back). */
  sameRequest: boolean;
}

/** The early attempts of a run, told apart. */
export interface EarlyAttempts {
  /** Sent with the wait known: each counts once, against the wait it broke by the most. */
  violations: EarlyAttempt[];
  /** Possibly sent before the hint reached the router; counted, never a violation. */
  races: EarlyAttempt[];
}

/** How the race rule reads a run: its tolerance and, in a fleet, the news's propagation bound. */
export interface RaceRule {
  /** Timer granularity and loopback latency, ms. */
  toleranceMs: number;
  /** In a fleet: how long news of a wait takes to reach another replica, ms. */
  fleetGraceMs: number;
  fleet: FleetView | undefined;
}

/**
 * Every attempt that arrived inside a wait announced on its scope, told apart into violations and
 * races. An attempt of another request is a race when the router may have sent it before the
 * hint reached it: it arrived after the hint's bytes left by no more than the tolerance plus what
 * the machine held the two up meanwhile (the harness's loop behind, the router's processes waiting
 * for a CPU: `starvationDuring`), plus, from another replica of a fleet than the one told, the
 * news's propagation bound. The request that drew the hint is never a race: it read the answer
 * before coming back. No fixed grace: in simulated time, where nothing stalls, a race is an attempt
 * that arrived within the tolerance of the hint leaving.
 */
export function findEarlyAttempts(
  input: Pick<CheckInput, 'loopBehindMs' | 'routerWaitMs' | 'routerSampledAt'>,
  windowsByScope: ReadonlyMap<string, WaitWindow[]>,
  attemptsByScope: ReadonlyMap<string, readonly LedgerRow[]>,
  rule: RaceRule,
): EarlyAttempts {
  const violations: EarlyAttempt[] = [];
  const races: EarlyAttempt[] = [];
  const tol = rule.toleranceMs;
  for (const [scope, list] of windowsByScope) {
    const waits = [...list].sort((x, y) => x.start - y.start);
    let next = 0;
    let active: WaitWindow[] = [];
    for (const a of attemptsByScope.get(scope) ?? []) {
      while (next < waits.length && waits[next]!.start <= a.arrivalAt) active.push(waits[next++]!);
      if (active.length === 0) continue;
      active = active.filter((w) => a.arrivalAt < w.end - tol);
      let worst: EarlyAttempt | undefined;
      let race: EarlyAttempt | undefined;
      for (const w of active) {
        // An attempt that arrived before the one that drew the wait cannot have known it; in
        // simulated time the two may share an instant, and the ledger's numbering tells them apart.
        if (w.seq === a.seq || (a.arrivalAt <= w.drawnAt && a.seq < w.seq)) continue;
        const e = classify(input, a, w, rule);
        if (e.race) {
          if (!race || e.attempt.by > race.by) race = e.attempt;
        } else if (!worst || e.attempt.by > worst.by) worst = e.attempt;
      }
      if (worst) violations.push(worst);
      else if (race) races.push(race);
    }
  }
  const byArrival = (x: EarlyAttempt, y: EarlyAttempt) => x.a.arrivalAt - y.a.arrivalAt;
  return { violations: violations.sort(byArrival), races: races.sort(byArrival) };
}

function classify(
  input: Pick<CheckInput, 'loopBehindMs' | 'routerWaitMs' | 'routerSampledAt'>,
  a: LedgerRow,
  w: WaitWindow,
  rule: RaceRule,
): { attempt: EarlyAttempt; race: boolean } {
  const sameRequest = a.correlationId !== null && a.correlationId === w.correlationId;
  const sender = rule.fleet?.of(a.correlationId);
  const into = a.arrivalAt - w.start;
  const starved = starvationDuring(input, w.start, a.arrivalAt, sender);
  const news = rule.fleet && sender !== rule.fleet.of(w.correlationId) ? rule.fleetGraceMs : 0;
  const excusedMs = starved.ms + news;
  const attempt: EarlyAttempt = { a, w, by: w.end - a.arrivalAt, into, starved, excusedMs, sameRequest };
  return { attempt, race: !sameRequest && into <= rule.toleranceMs + excusedMs };
}

/** How far past what could explain it an early attempt came, ms (its margin for the lag rule). */
export function marginOf(e: EarlyAttempt, rule: RaceRule): number {
  if (e.sameRequest) return e.by - rule.toleranceMs;
  return Math.min(e.by - rule.toleranceMs, e.into - rule.toleranceMs - e.excusedMs);
}
