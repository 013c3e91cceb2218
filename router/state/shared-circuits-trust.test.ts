import { describe, expect, it } from 'vitest';
import { CLOSED } from '../core/circuit.js';
import { fakeCircuitRedis as fakeRedis, open, settle } from '../../test/helpers/fake-circuit-redis.js';
import type { CircuitBackend } from './circuit-backend.js';
import { SharedCircuits } from './shared-circuits.js';

// Anyone who can PUBLISH on the fleet's channel can send a circuit's news: what it says is acted
// on, held to bounds, and checked against what Redis holds.

describe('SharedCircuits given a forged message numbered 2^53 - 1', () => {
  it('takes another replica’s opening after it, and undoes the forgery', async () => {
    const redis = fakeRedis();
    const [a, b] = [redis.replica(), redis.replica()];
    a.onMessage(
      's',
      `${Number.MAX_SAFE_INTEGER}|${JSON.stringify({ state: 'open', until: 9000, reason: 'x', opens: 1 })}`,
    );
    expect(a.get('s')).toMatchObject({ until: 9000 });
    await settle(redis);
    expect(a.get('s')).toBeUndefined();
    a.onMessage('s', `${Number.MAX_SAFE_INTEGER}|${JSON.stringify(CLOSED)}`);
    b.update('s', open(5000));
    await settle(redis);
    expect(a.get('s')).toMatchObject({ state: 'open', until: 5000 });
  });

  it('writes and takes leases against what Redis answered, never against the message', async () => {
    const redis = fakeRedis();
    const [a, b] = [redis.replica(() => 2000, 'a'), redis.replica(() => 2000, 'b')];
    const forged = `${Number.MAX_SAFE_INTEGER}|${JSON.stringify(CLOSED)}`;
    a.onMessage('s', forged);
    a.update('s', open(1000));
    a.onMessage('s', forged);
    await settle(redis);
    expect(b.get('s')).toMatchObject({ state: 'open', until: 1000 });
    // Open as the fleet's value is, so that the lease is asked for: of the fleet, not of this message.
    a.onMessage(
      's',
      `${Number.MAX_SAFE_INTEGER - 1}|${JSON.stringify({ state: 'open', until: 1000, reason: 'x', opens: 9 })}`,
    );
    const won = a.lease('s', (s) =>
      s.state === 'open' ? { ...s, state: 'half-open' as const, leaseUntil: 5000, lease: 'a#1' } : undefined,
    );
    expect(await won).toBe(true);
    await settle(redis);
    expect(b.get('s')).toMatchObject({ state: 'half-open', lease: 'a#1' });
    expect(a.events.failures).toEqual([]);
  });

  it('reads again for news heard while a read was on its way, though numbered below the forgery', async () => {
    const reads: Array<(values: string[]) => void> = [];
    const backend: CircuitBackend = {
      cas: () => Promise.reject(new Error('no writes here')),
      read: () => new Promise((answer) => reads.push(answer)),
    };
    const r = new SharedCircuits(
      backend,
      () => 0,
      () => {},
      () => {},
      'r0',
    );
    r.rejoin(new Map());
    r.onMessage('s', `${Number.MAX_SAFE_INTEGER}|${JSON.stringify(CLOSED)}`);
    const genuine = `1|${JSON.stringify({ state: 'open', until: 5000, reason: 'x', opens: 1 })}`;
    r.onMessage('s', genuine);
    reads[0]!(['']); // answered before the genuine write
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toHaveLength(2);
    reads[1]!([genuine]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(r.get('s')).toMatchObject({ state: 'open', until: 5000 });
    expect(reads).toHaveLength(2);
  });
});

describe('SharedCircuits given news it cannot trust', () => {
  const backend = { cas: () => Promise.resolve({ ok: true, value: '' }), read: () => new Promise<string[]>(() => {}) };
  const bounds = { maxOpenMs: 60_000, jitterRatio: 0, probeLeaseMs: 1000 };

  it('holds a window of 3650 days to maxOpenFor and counts a value that is not valid', () => {
    let rejected = 0;
    const r = new SharedCircuits(
      backend,
      () => 0,
      () => {},
      () => {},
      'r0',
      { bounds, onRejected: () => rejected++ },
    );
    r.rejoin(new Map());
    r.onMessage('limit:a', `5|${JSON.stringify({ state: 'open', until: 3650 * 86_400_000, reason: 'x', opens: 1 })}`);
    expect(r.get('limit:a')).toEqual({ state: 'open', until: 60_000, reason: 'x', opens: 1 });
    r.onMessage('limit:b', '6|{"state":"open","until":"later"}');
    expect([r.get('limit:b'), rejected]).toEqual([undefined, 1]);
  });

  it('takes no news of more scopes than a fleet has, and still of those it knows', () => {
    let rejected = 0;
    const r = new SharedCircuits(
      backend,
      () => 0,
      () => {},
      () => {},
      'r0',
      { bounds, onRejected: () => rejected++, maxScopes: 10 },
    );
    r.rejoin(new Map());
    const closed = (seq: number, failures: number) => `${seq}|{"state":"closed","failures":${failures}}`;
    for (let i = 0; i < 10; i++) r.onMessage(`s${i}`, closed(1, 1));
    r.onMessage('one-too-many', closed(1, 1));
    r.onMessage('s7', closed(2, 2));
    expect([r.get('one-too-many'), r.get('s7'), rejected]).toEqual([undefined, { state: 'closed', failures: 2 }, 1]);
  });
});
