import { describe, expect, it } from 'vitest';
import { boundCircuit, boundLimits, type FleetBounds } from './fleet-bounds.js';
import { readStored } from './read-stored.js';

const NOW = 1_000_000;
const DAY = 86_400_000;
const BOUNDS: FleetBounds = { maxOpenMs: 60_000, jitterRatio: 0, probeLeaseMs: 5_000 };

describe('boundCircuit', () => {
  it('opens for at most maxOpenFor given a window of 3650 days', () => {
    const raw = { state: 'open', until: NOW + 3650 * DAY, reason: 'quota', opens: 1 };
    expect(boundCircuit(raw, NOW, BOUNDS)).toEqual({ ...raw, until: NOW + 60_000 });
  });

  it('allows the jitter a local decision adds after maxOpenFor, and no more', () => {
    const raw = { state: 'open', until: NOW + 3650 * DAY, reason: 'quota', opens: 1 };
    expect(boundCircuit(raw, NOW, { ...BOUNDS, jitterRatio: 0.1 })).toMatchObject({ until: NOW + 66_000 });
  });

  it('holds a probe lease to the lease a replica takes itself', () => {
    const raw = { state: 'half-open', leaseUntil: NOW + DAY, reason: 'r', opens: 2, lease: 'r2#1' };
    expect(boundCircuit(raw, NOW, BOUNDS)).toEqual({ ...raw, leaseUntil: NOW + 5_000 });
  });

  it('keeps a window within bounds as it is', () => {
    const raw = { state: 'open', until: NOW + 1000, reason: 'r', opens: 1 };
    expect(boundCircuit(raw, NOW, BOUNDS)).toEqual(raw);
  });

  it.each([
    ['a negative window end', { state: 'open', until: -1, reason: 'r', opens: 1 }],
    ['an infinite window end', { state: 'open', until: Infinity, reason: 'r', opens: 1 }],
    ['NaN failures', { state: 'closed', failures: NaN }],
    ['a window end as text', { state: 'open', until: '9999999999999', reason: 'r', opens: 1 }],
    ['an unknown state', { state: 'ajar', until: 1 }],
    ['a negative count of openings', { state: 'open', until: 1, reason: 'r', opens: -3 }],
    ['no object at all', 42],
  ])('rejects %s', (_name, raw) => {
    expect(boundCircuit(raw, NOW, BOUNDS)).toBeUndefined();
  });
});

describe('boundLimits', () => {
  it('rejects a negative remaining count', () => {
    const raw = { refill: 'window', requests: { limit: 1, remaining: -1, resetAt: NOW, observedAt: NOW } };
    expect(boundLimits(raw, NOW, BOUNDS)).toBeUndefined();
  });
});

describe('readStored', () => {
  it('clamps a stored window beyond bounds as it reads it', () => {
    const value = `7|${JSON.stringify({ state: 'open', until: NOW + 3650 * DAY, reason: 'q', opens: 1 })}`;
    expect(readStored(value, NOW, BOUNDS)).toEqual({
      seq: 7,
      state: { state: 'open', until: NOW + 60_000, reason: 'q', opens: 1 },
    });
  });

  it.each([
    ['no sequence number', '{"state":"closed","failures":0}'],
    ['a negative sequence number', '-4|{"state":"closed","failures":0}'],
    ['a state that is not JSON', '3|{nope'],
    ['a state of the wrong type', '3|{"state":"open","until":"soon","reason":"q","opens":1}'],
  ])('reads %s as no state, and says it was not valid', (_name, value) => {
    expect(readStored(value, NOW, BOUNDS)).toMatchObject({ state: undefined, invalid: true });
  });

  it('reads no record as no state, not as an invalid one', () => {
    expect(readStored('', NOW, BOUNDS)).toEqual({ seq: 0, state: undefined });
  });
});
