import { describe, expect, it } from 'vitest';
import {
  admit,
  CLOSED,
  joinCircuit,
  openCircuit,
  recordFailure,
  recordSuccess,
  type CircuitOptions,
  type CircuitState,
} from './circuit.js';
import { createRng } from './rng.js';

const o: CircuitOptions = {
  failureThreshold: 3,
  openMs: 1000,
  maxOpenMs: 60_000,
  maxBackoffMs: 8000,
  jitterRatio: 0,
  probeLeaseMs: 5000,
};
const rng = createRng(1);

describe('circuit', () => {
  it('opens for the retry-after window given a 429 and refuses until then', () => {
    const s = openCircuit(CLOSED, 5000, 0, 'rate limited', o, rng);
    expect(admit(s, 4999, o)).toEqual({ allowed: false, retryAt: 5000 });
    expect(admit(s, 5000, o).allowed).toBe(true);
  });

  it('extends monotonically: a shorter hint never shortens an open window', () => {
    const long = openCircuit(CLOSED, 10_000, 0, 'a', o, rng);
    expect(openCircuit(long, 2000, 1000, 'b', o, rng)).toBe(long);
    expect(openCircuit(long, 20_000, 1000, 'c', o, rng)).toMatchObject({ until: 20_000 });
  });

  it('caps an absurd window at maxOpenMs and then probes', () => {
    expect(openCircuit(CLOSED, 259_200_000, 0, 'three days', o, rng)).toMatchObject({ until: 60_000 });
  });

  it('adds jitter only after the window, never before', () => {
    const jittery = { ...o, jitterRatio: 0.5 };
    for (let i = 0; i < 50; i++) {
      const s = openCircuit(CLOSED, 1000, 0, 'x', jittery, createRng(i)) as Extract<CircuitState, { state: 'open' }>;
      expect(s.until).toBeGreaterThanOrEqual(1000);
      expect(s.until).toBeLessThanOrEqual(1500);
    }
  });

  it('admits exactly one probe after the window; the others are refused, not queued', () => {
    const open = openCircuit(CLOSED, 1000, 0, 'x', o, rng);
    const first = admit(open, 1000, o);
    expect(first).toMatchObject({ allowed: true, probe: true, next: { state: 'half-open', leaseUntil: 6000 } });
    const halfOpen = (first as { next: CircuitState }).next;
    expect(admit(halfOpen, 1001, o)).toEqual({ allowed: false, retryAt: 6000 });
    expect(admit(halfOpen, 6000, o)).toMatchObject({ allowed: true, probe: true });
  });

  it('closes on a successful probe and re-opens longer on a failed one', () => {
    const halfOpen: CircuitState = { state: 'half-open', leaseUntil: 9000, reason: 'x', opens: 2 };
    expect(recordSuccess(halfOpen, true)).toEqual(CLOSED);
    expect(recordFailure(halfOpen, 2000, 'y', o, rng, true)).toMatchObject({
      state: 'open',
      until: 2000 + 4000,
      opens: 3,
    });
  });

  it('caps the doubling of windows without a hint, so an outage is re-probed at least that often', () => {
    const failedProbe = (opens: number): CircuitState => ({ state: 'half-open', leaseUntil: 0, reason: 'x', opens });
    expect(recordFailure(failedProbe(2), 0, 'y', o, rng, true)).toMatchObject({ until: 4000 });
    expect(recordFailure(failedProbe(3), 0, 'y', o, rng, true)).toMatchObject({ until: 8000 });
    expect(recordFailure(failedProbe(6), 0, 'y', o, rng, true)).toMatchObject({ until: 8000 });
  });

  it('ignores the late success or failure of an attempt sent before the circuit opened', () => {
    // A stream that started before a 429 announced a wait finishes inside the wait: the window stays.
    const open: CircuitState = { state: 'open', until: 5000, reason: 'rate limited', opens: 1 };
    expect(recordSuccess(open)).toBe(open);
    expect(recordFailure(open, 100, 'late', o, rng)).toBe(open);
    const halfOpen: CircuitState = { state: 'half-open', leaseUntil: 9000, reason: 'x', opens: 1 };
    expect(recordSuccess(halfOpen)).toBe(halfOpen);
    expect(recordFailure(halfOpen, 100, 'late', o, rng)).toBe(halfOpen);
  });

  it('opens after consecutive failures, not before', () => {
    let s: CircuitState = CLOSED;
    s = recordFailure(s, 0, 'e', o, rng);
    s = recordFailure(s, 0, 'e', o, rng);
    expect(s).toEqual({ state: 'closed', failures: 2 });
    s = recordFailure(s, 0, 'e', o, rng);
    expect(s).toMatchObject({ state: 'open', until: 1000 });
    expect(recordSuccess({ state: 'closed', failures: 2 })).toEqual(CLOSED);
  });

  it('keeps a window announced while the probe was out, given the probe succeeds', () => {
    const reopened: CircuitState = { state: 'open', until: 9000, reason: 'rate limited', opens: 2 };
    expect(recordSuccess(reopened, true)).toBe(reopened);
  });

  it('brings back a later window a replica learnt alone, and otherwise takes the fleet’s state', () => {
    const fleet: CircuitState = { state: 'open', until: 5000, reason: 'a', opens: 1 };
    const later: CircuitState = { state: 'open', until: 8000, reason: 'b', opens: 3 };
    expect(joinCircuit(fleet, later, 1000)).toEqual({ state: 'open', until: 8000, reason: 'b', opens: 3 });
    expect(joinCircuit(CLOSED, later, 1000)).toMatchObject({ state: 'open', until: 8000 });
    expect(joinCircuit(later, fleet, 1000)).toBe(later);
    expect(joinCircuit(fleet, later, 9000)).toBe(fleet);
    expect(joinCircuit(CLOSED, CLOSED, 0)).toBe(CLOSED);
    // The fleet still shows a lease this replica took before the link went; its probe answered since.
    const leased: CircuitState = {
      state: 'half-open',
      leaseUntil: 60_000,
      reason: 'x',
      opens: 1,
      lease: 'replica-0#4',
    };
    expect(joinCircuit(leased, CLOSED, 1000, 'replica-0')).toBe(CLOSED);
    expect(joinCircuit(leased, CLOSED, 1000, 'replica-1')).toBe(leased);
    expect(joinCircuit(leased, CLOSED, 1000)).toBe(leased);
    const reopenedPast: CircuitState = { state: 'open', until: 500, reason: 'y', opens: 2 };
    expect(joinCircuit(leased, reopenedPast, 1000, 'replica-0')).toBe(reopenedPast);
    // Still probing across the outage: the fleet's record stands.
    expect(joinCircuit(leased, { ...leased }, 1000, 'replica-0')).toBe(leased);
  });
});
