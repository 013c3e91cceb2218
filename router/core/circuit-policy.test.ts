// Over 300 lines on purpose: one table of breaker cases for the pure decideCircuits, read as one list.
import { describe, expect, it } from 'vitest';
import { CircuitBook } from './circuit-book.js';
import { decideCircuits, type BreakerSettings, type CircuitDecision, type PolicyOutcome } from './circuit-policy.js';
import { CLOSED, type CircuitOptions, type CircuitState } from './circuit.js';
import { createMemoryStore } from '../state/memory-store.js';

const NOW = 1_000_000;
const SCOPES = { providerScope: 'provider:p', keyScope: 'key:p/k', limitScope: 'limit:p/k/m' };
const B: BreakerSettings = {
  openForMs: 2000,
  quotaOpenForMs: 3_600_000,
  rejectedOpenForMs: 3_600_000,
  maxOpenForMs: 90_000_000,
  maxBackoffOpenForMs: 8000,
  floorMs: 100,
};
const OPEN_TWICE: CircuitState = { state: 'open', until: NOW - 1, reason: 'overloaded (529)', opens: 2 };

interface Row {
  name: string;
  outcome: PolicyOutcome;
  probes?: string[];
  providerCircuit?: CircuitState;
  expected: CircuitDecision;
}

const success = (scope: string, probe = false) => ({ op: 'success', scope, probe }) as const;

const TABLE: Row[] = [
  {
    name: 'a hinted 429 opens the model limit for the announced wait; provider and key stay healthy',
    outcome: { kind: 'rate_limited', status: 429, waitMs: 7000 },
    expected: {
      reliability: 1,
      ops: [
        success('provider:p'),
        success('key:p/k'),
        { op: 'open', scope: 'limit:p/k/m', until: NOW + 7000, reason: 'rate limited' },
      ],
    },
  },
  {
    name: 'a hinted 429 of zero still opens for the floor, never a hot loop',
    outcome: { kind: 'rate_limited', status: 429, waitMs: 0 },
    expected: {
      reliability: 1,
      ops: [
        success('provider:p'),
        success('key:p/k'),
        { op: 'open', scope: 'limit:p/k/m', until: NOW + 100, reason: 'rate limited' },
      ],
    },
  },
  {
    name: 'an unhinted 429 opens the model limit for the base window',
    outcome: { kind: 'rate_limited', status: 429 },
    expected: {
      reliability: 1,
      ops: [
        success('provider:p'),
        success('key:p/k'),
        { op: 'open', scope: 'limit:p/k/m', until: NOW + 2000, reason: 'rate limited' },
      ],
    },
  },
  {
    name: 'a quota wall with a wait opens the key until the wall ends',
    outcome: { kind: 'quota_exhausted', status: 429, waitMs: 5 * 3_600_000 },
    expected: {
      reliability: 1,
      ops: [
        success('provider:p'),
        { op: 'open', scope: 'key:p/k', until: NOW + 5 * 3_600_000, reason: 'quota exhausted' },
      ],
    },
  },
  {
    name: 'a quota wall without a wait opens the key for the quota window',
    outcome: { kind: 'quota_exhausted', status: 402 },
    expected: {
      reliability: 1,
      ops: [success('provider:p'), { op: 'open', scope: 'key:p/k', until: NOW + 3_600_000, reason: 'quota exhausted' }],
    },
  },
  {
    name: 'a 529 opens the provider for the base window the first time',
    outcome: { kind: 'overloaded', status: 529 },
    expected: {
      reliability: 0,
      ops: [{ op: 'open', scope: 'provider:p', until: NOW + 2000, reason: 'overloaded (529)' }],
    },
  },
  {
    name: 'a 503 after two openings doubles the window twice, capped',
    outcome: { kind: 'overloaded', status: 503 },
    providerCircuit: OPEN_TWICE,
    expected: {
      reliability: 0,
      ops: [{ op: 'open', scope: 'provider:p', until: NOW + 8000, reason: 'overloaded (503)' }],
    },
  },
  {
    name: 'a hinted 529 opens the provider for the hint, and gives back the model lease it did not test',
    outcome: { kind: 'overloaded', status: 529, waitMs: 30_000 },
    probes: ['limit:p/k/m'],
    expected: {
      reliability: 0,
      ops: [
        { op: 'open', scope: 'provider:p', until: NOW + 30_000, reason: 'overloaded (529)' },
        { op: 'release', scope: 'limit:p/k/m' },
      ],
    },
  },
  {
    name: 'an unhinted 5xx counts a provider failure',
    outcome: { kind: 'server_error', status: 500 },
    expected: {
      reliability: 0,
      ops: [{ op: 'failure', scope: 'provider:p', reason: 'server error (500)', probe: false }],
    },
  },
  {
    name: 'a hinted 5xx opens the provider for the hint',
    outcome: { kind: 'server_error', status: 502, waitMs: 3000 },
    expected: {
      reliability: 0,
      ops: [{ op: 'open', scope: 'provider:p', until: NOW + 3000, reason: 'server error (502)' }],
    },
  },
  {
    name: 'a timeout counts a provider failure, as the probe when it held the lease',
    outcome: { kind: 'timeout', phase: 'headers' },
    probes: ['provider:p'],
    expected: { reliability: 0, ops: [{ op: 'failure', scope: 'provider:p', reason: 'timeout', probe: true }] },
  },
  {
    name: 'a first-token timeout after keep-alive filler only opens nothing and gives its leases back',
    outcome: { kind: 'timeout', phase: 'first-token', held: true },
    probes: ['provider:p', 'limit:p/k/m'],
    expected: {
      reliability: 0,
      ops: [
        { op: 'release', scope: 'provider:p' },
        { op: 'release', scope: 'limit:p/k/m' },
      ],
    },
  },
  {
    name: 'a first-token timeout with no filler counts a provider failure',
    outcome: { kind: 'timeout', phase: 'first-token' },
    expected: { reliability: 0, ops: [{ op: 'failure', scope: 'provider:p', reason: 'timeout', probe: false }] },
  },
  {
    name: 'a network error counts a provider failure',
    outcome: { kind: 'network_error', message: 'ECONNRESET' },
    expected: { reliability: 0, ops: [{ op: 'failure', scope: 'provider:p', reason: 'network_error', probe: false }] },
  },
  {
    name: 'a stream that breaks before its first token counts a provider failure',
    outcome: { kind: 'stream_error', message: 'cut' },
    expected: { reliability: 0, ops: [{ op: 'failure', scope: 'provider:p', reason: 'stream_error', probe: false }] },
  },
  {
    name: 'a stream that fails after its first token counts a provider failure',
    outcome: { kind: 'stream_failed_late' },
    expected: {
      ops: [{ op: 'failure', scope: 'provider:p', reason: 'stream failed after first token', probe: false }],
    },
  },
  {
    name: 'a rejected key opens the key for the rejection window (nothing announces its end)',
    outcome: { kind: 'auth_error', status: 401 },
    expected: {
      ops: [
        success('provider:p'),
        { op: 'open', scope: 'key:p/k', until: NOW + 3_600_000, reason: 'key rejected (401)' },
      ],
    },
  },
  {
    name: 'a missing model disables the target, not the provider',
    outcome: { kind: 'not_found', status: 404 },
    expected: { ops: [success('provider:p')], disableTargetUntil: NOW + 3_600_000 },
  },
  {
    name: 'a daily wall announced for 10 h keeps the key out for 10 h, not an hour',
    outcome: { kind: 'quota_exhausted', status: 429, waitMs: 10 * 3_600_000 },
    expected: {
      reliability: 1,
      ops: [
        success('provider:p'),
        { op: 'open', scope: 'key:p/k', until: NOW + 10 * 3_600_000, reason: 'quota exhausted' },
      ],
    },
  },
  {
    name: 'an absurd wait (99 999 999 h, about 11 400 years) is held to maxOpenFor',
    outcome: { kind: 'rate_limited', status: 429, waitMs: 99_999_999 * 3_600_000 },
    expected: {
      reliability: 1,
      ops: [
        success('provider:p'),
        success('key:p/k'),
        { op: 'open', scope: 'limit:p/k/m', until: NOW + 90_000_000, reason: 'rate limited' },
      ],
    },
  },
  {
    name: 'an absurd quota wall is held to maxOpenFor too',
    outcome: { kind: 'quota_exhausted', status: 429, waitMs: 99_999_999 * 3_600_000 },
    expected: {
      reliability: 1,
      ops: [
        success('provider:p'),
        { op: 'open', scope: 'key:p/k', until: NOW + 90_000_000, reason: 'quota exhausted' },
      ],
    },
  },
  {
    name: "the caller's own bad request opens nothing",
    outcome: { kind: 'client_error', status: 400, message: 'bad' },
    probes: ['key:p/k'],
    expected: { ops: [success('provider:p'), success('key:p/k', true), success('limit:p/k/m')] },
  },
  {
    name: 'a success records success on every scope, as the probe where it held a lease',
    outcome: { kind: 'ok', status: 200 },
    probes: ['limit:p/k/m'],
    expected: { reliability: 1, ops: [success('provider:p'), success('key:p/k'), success('limit:p/k/m', true)] },
  },
  {
    name: 'an aborted attempt gives back every lease it held',
    outcome: { kind: 'aborted' },
    probes: ['provider:p', 'limit:p/k/m'],
    expected: {
      ops: [
        { op: 'release', scope: 'provider:p' },
        { op: 'release', scope: 'limit:p/k/m' },
      ],
    },
  },
];

describe('decideCircuits', () => {
  it.each(TABLE)('$name', ({ outcome, probes = [], providerCircuit = CLOSED, expected }) => {
    expect(decideCircuits({ outcome, scopes: SCOPES, probes, breaker: B, now: NOW, providerCircuit })).toEqual(
      expected,
    );
  });

  it('decides every outcome class', () => {
    const kinds = new Set(TABLE.map((r) => r.outcome.kind));
    const all = [
      'ok',
      'rate_limited',
      'quota_exhausted',
      'overloaded',
      'server_error',
      'timeout',
      'network_error',
      'stream_error',
      'auth_error',
      'not_found',
      'client_error',
      'aborted',
      'stream_failed_late',
    ];
    expect(all.filter((k) => !kinds.has(k as never))).toEqual([]);
  });
});

describe('decideCircuits applied to a CircuitBook', () => {
  const options: CircuitOptions = {
    failureThreshold: 3,
    openMs: 2000,
    maxOpenMs: 86_400_000,
    maxBackoffMs: 8000,
    jitterRatio: 0,
    probeLeaseMs: 5000,
  };
  const book = () => new CircuitBook(createMemoryStore(), options, { next: () => 0 });
  const apply = (c: CircuitBook, outcome: PolicyOutcome, now: number, probes: string[] = []) =>
    c.apply(
      decideCircuits({ outcome, scopes: SCOPES, probes, breaker: B, now, providerCircuit: c.get('provider:p') }).ops,
      now,
    );

  it('keeps an announced window open given a late success of an attempt sent before it', () => {
    const c = book();
    apply(c, { kind: 'rate_limited', status: 429, waitMs: 5000 }, NOW);
    apply(c, { kind: 'ok', status: 200 }, NOW + 100);
    expect(c.get('limit:p/k/m')).toMatchObject({ state: 'open', until: NOW + 5000 });
  });

  it('closes the circuit given the probe succeeds after the window', () => {
    const c = book();
    apply(c, { kind: 'rate_limited', status: 429, waitMs: 5000 }, NOW);
    expect(c.pass('limit:p/k/m', NOW + 5000)).toEqual({ probe: true });
    expect(c.pass('limit:p/k/m', NOW + 5001)).toBeUndefined();
    apply(c, { kind: 'ok', status: 200 }, NOW + 5200, ['limit:p/k/m']);
    expect(c.get('limit:p/k/m')).toEqual(CLOSED);
  });

  it('re-opens for a longer window given the probe fails', () => {
    const c = book();
    for (let i = 0; i < 3; i++) apply(c, { kind: 'server_error', status: 500 }, NOW);
    expect(c.get('provider:p')).toMatchObject({ state: 'open', until: NOW + 2000, opens: 1 });
    expect(c.pass('provider:p', NOW + 2000)).toEqual({ probe: true });
    apply(c, { kind: 'timeout', phase: 'headers' }, NOW + 2100, ['provider:p']);
    expect(c.get('provider:p')).toMatchObject({ state: 'open', until: NOW + 2100 + 4000, opens: 2 });
  });

  it('ignores a failure of an attempt that was not the probe while the circuit is open', () => {
    const c = book();
    apply(c, { kind: 'overloaded', status: 529 }, NOW);
    apply(c, { kind: 'network_error', message: 'reset' }, NOW + 10);
    expect(c.get('provider:p')).toMatchObject({ state: 'open', until: NOW + 2000, opens: 1 });
  });

  it('lets the next request probe at once given the probe is released untested', () => {
    const c = book();
    apply(c, { kind: 'rate_limited', status: 429, waitMs: 1000 }, NOW);
    expect(c.pass('limit:p/k/m', NOW + 1000)).toEqual({ probe: true });
    apply(c, { kind: 'aborted' }, NOW + 1001, ['limit:p/k/m']);
    expect(c.pass('limit:p/k/m', NOW + 1002)).toEqual({ probe: true });
  });
});
