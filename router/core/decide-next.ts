import { admitWaiter, type Shed, type WaiterFacts } from './admit-waiter.js';
import { backoffMs, type BackoffOptions } from './backoff.js';
import { waitFits, type Deadline } from './deadline.js';
import type { Rng } from './rng.js';

/** Why a request ends without a provider's answer. */
export type Failure = 'client_closed' | 'deadline_exceeded' | 'max_attempts' | 'retry_budget' | 'no_capacity';

/**
 * Rank the targets usable now and admit the best through its circuits, then ask again with what
 * selection found; `extra` when an admitted target must be paid for from the retry budget.
 */
export interface SelectStep {
  kind: 'select';
  extra: boolean;
}

/** Send the attempt to the admitted target. */
export interface AttemptStep {
  kind: 'attempt';
  target: string;
}

/** Hold the request this long for capacity (a circuit changing state ends the wait early). */
export interface WaitStep {
  kind: 'wait';
  waitMs: number;
}

/** The request ends without a provider's answer. */
export interface FailStep {
  kind: 'fail';
  failure: Failure;
}

/** What the request loop does next. */
export type NextStep = SelectStep | AttemptStep | WaitStep | Shed | FailStep;

/** The settings the decision reads, in milliseconds; one object for the router's lifetime. */
export interface NextSettings {
  maxAttempts: number;
  /** The backoff after failed attempts: its base is also the wait when nothing says how long. */
  backoff: BackoffOptions;
  /** The longest a request is held for capacity at once. */
  maxWaitMs: number;
  /** A wait must leave at least this long for an attempt before the deadline. */
  minAttemptMs: number;
  /** The most requests held waiting for capacity at once. */
  maxWaiting: number;
}

/** What the router knows of its capacity when nothing can serve the request now. */
export interface WaitFacts extends WaiterFacts {
  /** When the first candidate could be tried, a probe in flight counting as now (its answer wakes waiters); Infinity when none. */
  waitableAt: number;
}

/**
 * How far selection got at `now`: not run yet (it draws the ranking's tie-breaks and takes probe
 * leases, so it runs only for a request that can still be attempted), a target admitted through
 * its circuits (`paid`: by the retry budget, or no payment was due), or none.
 */
export type Selection =
  { kind: 'pending' } | { kind: 'admitted'; target: string; paid: boolean } | { kind: 'none'; facts: WaitFacts };

/** What the decision needs: the request's state at `now` and what selection found. */
export interface NextInput {
  now: number;
  deadline: Deadline;
  /** The client went away. */
  aborted: boolean;
  /** Attempts made so far. */
  attempts: number;
  settings: NextSettings;
  selection: Selection;
}

/** The two answers that ask for selection, shared (never mutated). */
const SELECT_FIRST: SelectStep = Object.freeze({ kind: 'select', extra: false });
const SELECT_EXTRA: SelectStep = Object.freeze({ kind: 'select', extra: true });

/** The input with selection at one stage: each stage has its own few answers. */
type At<K extends Selection['kind']> = NextInput & { selection: Extract<Selection, { kind: K }> };

/**
 * Decides a request's next step: attempt, wait, shed or fail. Pure: time comes in as `now`, and
 * the only draw is the backoff's jitter, from `rng`, made only when a request that has failed
 * decides whether to wait.
 */
export function decideNext(input: At<'pending'>, rng: Rng): FailStep | SelectStep;
export function decideNext(input: At<'admitted'>, rng: Rng): FailStep | AttemptStep;
export function decideNext(input: At<'none'>, rng: Rng): FailStep | WaitStep | Shed;
export function decideNext(input: NextInput, rng: Rng): NextStep;
export function decideNext(input: NextInput, rng: Rng): NextStep {
  const { now, deadline, attempts, settings: s, selection } = input;
  if (input.aborted) return { kind: 'fail', failure: 'client_closed' };
  // Timers are millisecond-grained and may fire a fraction early: under a millisecond left is no time.
  if (now >= deadline.at - 1) return { kind: 'fail', failure: 'deadline_exceeded' };
  if (attempts >= s.maxAttempts) return { kind: 'fail', failure: 'max_attempts' };
  if (selection.kind === 'pending') return attempts > 0 ? SELECT_EXTRA : SELECT_FIRST;
  if (selection.kind === 'admitted')
    return selection.paid ? { kind: 'attempt', target: selection.target } : { kind: 'fail', failure: 'retry_budget' };
  return decideWait(input, selection.facts, rng);
}

/**
 * Nothing can serve now: wait for the earliest candidate, and after failed attempts never less
 * than the backoff for their number, only if the wait still leaves time for an attempt before the
 * deadline, and only if admission holds the request.
 */
function decideWait(input: NextInput, f: WaitFacts, rng: Rng): FailStep | WaitStep | Shed {
  const { now, deadline, attempts, settings: s } = input;
  const floor = attempts === 0 ? 0 : backoffMs(attempts - 1, s.backoff, rng);
  let waitMs = Math.max(f.waitableAt - now, floor);
  // The capacity the wait is for comes from when it ends, or at once for a wait any answer cuts short.
  let from = now + waitMs;
  if (waitMs === 0) {
    from = now;
    // A probe is in flight or only this request's failed targets are ready: look again after the
    // base backoff, or when woken (a probe's answer wakes waiters). Near the deadline, only as long
    // as still leaves time for an attempt: the probe may answer well within it.
    const room = deadline.at - s.minAttemptMs - now;
    waitMs = room > 0 ? Math.min(s.backoff.baseMs, room) : s.backoff.baseMs;
  }
  if (waitMs > s.maxWaitMs || !waitFits(deadline, now, waitMs, s.minAttemptMs))
    return { kind: 'fail', failure: 'no_capacity' };
  return admitWaiter(f, s.maxWaiting, now, from, deadline.at - s.minAttemptMs) ?? { kind: 'wait', waitMs };
}
