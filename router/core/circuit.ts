import type { Rng } from './rng.js';

/** A circuit's state: the breaker state machine as a plain, serialisable value. */
export type CircuitState =
  | { state: 'closed'; failures: number }
  | { state: 'open'; until: number; reason: string; opens: number }
  | { state: 'half-open'; leaseUntil: number; reason: string; opens: number; lease?: string };

/** Breaker settings. */
export interface CircuitOptions {
  /** Consecutive failures (without a wait hint) that open the circuit. */
  failureThreshold: number;
  /** Open window when no hint says how long; doubles with each re-open. */
  openMs: number;
  /** Longest window honoured (a hint of three days is capped here, then probed). */
  maxOpenMs: number;
  /** Longest a window without a hint grows to as failed probes double it. */
  maxBackoffMs: number;
  /** Extra random delay on re-opening, as a fraction of the window, so replicas do not re-probe together. */
  jitterRatio: number;
  /** How long a probe may hold the half-open lease before another may try. */
  probeLeaseMs: number;
}

export const CLOSED: CircuitState = Object.freeze({ state: 'closed', failures: 0 });

/** The decision for one request that wants to pass. */
export type Admission = { allowed: true; probe: boolean; next: CircuitState } | { allowed: false; retryAt: number };

/**
 * Opens (or extends) a circuit until `until` plus jitter. Windows only ever grow: a shorter new
 * hint never shortens an open circuit.
 */
export function openCircuit(
  s: CircuitState,
  until: number,
  now: number,
  reason: string,
  o: CircuitOptions,
  rng: Rng,
): CircuitState {
  const capped = Math.min(until, now + o.maxOpenMs);
  // Jitter goes after the window, never before it, so it cannot make a retry early.
  const jittered = capped + (capped - now) * o.jitterRatio * rng.next();
  const opens = s.state === 'closed' ? 1 : s.opens + 1;
  if (s.state === 'open' && s.until >= jittered) return s;
  return { state: 'open', until: jittered, reason, opens };
}

/**
 * Records a failure without a wait hint: counts, and opens after `failureThreshold`, or re-opens a
 * failed probe. A failure of an attempt that was not the probe, ending while the circuit is open
 * or half-open, started before the circuit opened and says nothing new: it is ignored.
 */
export function recordFailure(
  s: CircuitState,
  now: number,
  reason: string,
  o: CircuitOptions,
  rng: Rng,
  probe = false,
): CircuitState {
  if (s.state === 'closed') {
    const failures = s.failures + 1;
    if (failures < o.failureThreshold) return { state: 'closed', failures };
    return openCircuit(s, now + o.openMs, now, reason, o, rng);
  }
  if (!probe) return s;
  // A failed probe re-opens for a longer window.
  const window = Math.min(o.maxBackoffMs, o.maxOpenMs, o.openMs * 2 ** s.opens);
  return openCircuit(s, now + window, now, reason, o, rng);
}

/**
 * Records a success: resets the failure count, and a successful probe closes a half-open circuit.
 * A success of an attempt that was not the probe cannot close an open or half-open circuit: it
 * started before the circuit opened (a stream finishing after a 429 announced a wait) and proves
 * nothing about the window. Nor can the probe's success close a circuit re-opened while it was
 * out: that window was announced later than the probe was sent.
 */
export function recordSuccess(s: CircuitState, probe = false): CircuitState {
  if (s.state === 'closed') return s.failures === 0 ? s : CLOSED;
  return probe && s.state === 'half-open' ? CLOSED : s;
}

/**
 * Decides whether a request may pass. After an open window, exactly one request is admitted as
 * the probe and holds a lease; the others are refused and fail over rather than queue.
 */
export function admit(s: CircuitState, now: number, o: CircuitOptions): Admission {
  switch (s.state) {
    case 'closed':
      return { allowed: true, probe: false, next: s };
    case 'open':
      if (now < s.until) return { allowed: false, retryAt: s.until };
      return {
        allowed: true,
        probe: true,
        next: { state: 'half-open', leaseUntil: now + o.probeLeaseMs, reason: s.reason, opens: s.opens },
      };
    case 'half-open':
      if (now < s.leaseUntil) return { allowed: false, retryAt: s.leaseUntil };
      return { allowed: true, probe: true, next: { ...s, leaseUntil: now + o.probeLeaseMs } };
  }
}

/**
 * What a replica that served on its own while the shared store was away brings back: the fleet's
 * state, unless this replica knows of a window open later than anything the fleet has (absolute
 * expiries only extend), or the fleet still shows the probe lease this replica (`replica`) took
 * before the link was lost and the probe has answered since: that answer (closed, or re-opened) is
 * news only this replica has, and without it the fleet would wait out the whole lease.
 */
export function joinCircuit(fleet: CircuitState, local: CircuitState, now: number, replica?: string): CircuitState {
  if (local.state === 'open' && local.until > now) {
    if (fleet.state === 'open' && fleet.until >= local.until) return fleet;
    const opens = Math.max(local.opens, fleet.state === 'closed' ? 0 : fleet.opens);
    return { state: 'open', until: local.until, reason: local.reason, opens };
  }
  const ownLease =
    replica !== undefined && fleet.state === 'half-open' && fleet.lease?.startsWith(`${replica}#`) === true;
  if (ownLease && !(local.state === 'half-open' && local.lease === fleet.lease)) return local;
  return fleet;
}

/** When a refused request could next be admitted (for Retry-After and waits). */
export function availableAt(s: CircuitState, now: number): number {
  if (s.state === 'open') return Math.max(now, s.until);
  if (s.state === 'half-open') return Math.max(now, s.leaseUntil);
  return now;
}
