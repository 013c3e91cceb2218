import { describe, expect, it } from 'vitest';
import { admit, CLOSED, openCircuit, recordFailure, type CircuitOptions, type CircuitState } from '../core/circuit.js';
import { SharedCircuits, type CircuitBackend } from './shared-circuits.js';

const o: CircuitOptions = {
  failureThreshold: 3,
  openMs: 1000,
  maxOpenMs: 60_000,
  maxBackoffMs: 8000,
  jitterRatio: 0,
  probeLeaseMs: 5000,
};
const rng = { next: () => 0 };
const open = (until: number) => (s: CircuitState) => openCircuit(s, until, 0, 'rate limited', o, rng);
const fail = (s: CircuitState) => recordFailure(s, 0, 'server error', o, rng);

/** Redis as the shared cache sees it: compare-and-set, numbered writes, and a channel to every replica. */
function fakeRedis() {
  const values = new Map<string, string>();
  const replicas: SharedCircuits[] = [];
  let seq = 0;
  let down = false;
  /** Writes and messages still on their way: `settle` waits for none. */
  let inflight = 0;
  const backend: CircuitBackend = {
    async cas(scope, expected, state) {
      inflight++;
      try {
        await new Promise((r) => setTimeout(r, 1));
        if (down) throw new Error('connect ECONNREFUSED');
        const current = values.get(scope) ?? '';
        if (current !== expected) return { ok: false, value: current };
        const value = `${++seq}|${state}`;
        values.set(scope, value);
        inflight++;
        setTimeout(() => {
          inflight--;
          replicas.forEach((r) => r.onMessage(scope, value));
        }, 1);
        return { ok: true, value };
      } finally {
        inflight--;
      }
    },
  };
  return {
    values,
    get inflight() {
      return inflight;
    },
    set down(v: boolean) {
      down = v;
    },
    replica(now = () => 0, name?: string) {
      const events = { changed: [] as string[], failures: [] as unknown[] };
      const r = new SharedCircuits(
        backend,
        now,
        (scope) => events.changed.push(scope),
        (e) => {
          events.failures.push(e);
          r.leave();
        },
        name,
      );
      r.rejoin(new Map(values));
      replicas.push(r);
      return Object.assign(r, { events });
    },
  };
}

/**
 * Until every write and message of the fake Redis has landed (and what they set off), however
 * slow the machine: a fixed sleep lost the race to a chain of 1 ms hops on a loaded one.
 */
async function settle(redis: { readonly inflight: number }): Promise<void> {
  for (let i = 0; i < 400; i++) {
    await new Promise((r) => setTimeout(r, 5));
    if (redis.inflight === 0) return;
  }
  throw new Error('the fake Redis did not settle in 2 s');
}

describe('SharedCircuits', () => {
  it('applies a change at once and writes it for the fleet in the background', async () => {
    const redis = fakeRedis();
    const [a, b] = [redis.replica(), redis.replica()];
    a.update('s', open(5000));
    expect(a.get('s')).toMatchObject({ until: 5000 });
    expect(b.get('s')).toBeUndefined();
    await settle(redis);
    expect(b.get('s')).toMatchObject({ until: 5000 });
    expect(b.events.changed).toEqual(['s']);
    expect(redis.values.get('s')).toMatch(/^1\|\{"state":"open"/);
  });

  it('applies a change again to the newer state when another replica wrote first', async () => {
    const redis = fakeRedis();
    const [a, b] = [redis.replica(), redis.replica()];
    a.update('s', fail);
    b.update('s', fail);
    await settle(redis);
    expect(a.get('s')).toEqual({ state: 'closed', failures: 2 });
    expect(b.get('s')).toEqual({ state: 'closed', failures: 2 });
    expect(a.pendingWrites() + b.pendingWrites()).toBe(0);
  });

  it('ignores news older than what it already has', async () => {
    const redis = fakeRedis();
    const a = redis.replica();
    a.onMessage('s', `5|${JSON.stringify({ state: 'open', until: 9000, reason: 'x', opens: 1 })}`);
    a.onMessage('s', `4|${JSON.stringify(CLOSED)}`);
    expect(a.get('s')).toMatchObject({ until: 9000 });
  });

  it('serves alone while the fleet is out of reach, deciding leases at once', async () => {
    const redis = fakeRedis();
    const a = redis.replica();
    redis.down = true;
    a.update('s', open(1000));
    await settle(redis);
    expect(a.events.failures).toHaveLength(1);
    a.update('t', open(2000));
    expect(a.get('t')).toMatchObject({ until: 2000 });
    expect(a.pendingWrites()).toBe(0);
    const lease = (s: CircuitState) =>
      s.state === 'open' ? { ...s, state: 'half-open' as const, leaseUntil: 5000 } : undefined;
    expect(a.lease('s', lease)).toBe(true);
  });

  it('writes back on rejoining only the windows the fleet did not know, and takes the fleet’s state otherwise', async () => {
    const redis = fakeRedis();
    const a = redis.replica(() => 100);
    redis.down = true;
    a.update('later', open(8000));
    a.update('expired', open(50));
    a.update('fleet-knows-more', open(3000));
    await settle(redis);
    redis.down = false;
    const newer = `7|${JSON.stringify({ state: 'open', until: 6000, reason: 'y', opens: 1 })}`;
    const pushed = a.rejoin(new Map([['fleet-knows-more', newer]]));
    expect(pushed).toBe(1);
    expect(a.get('fleet-knows-more')).toMatchObject({ until: 6000 });
    expect(a.get('expired')).toBeUndefined();
    await settle(redis);
    expect(redis.values.get('later')).toMatch(/"until":8000/);
    expect(redis.values.has('expired')).toBe(false);
  });

  it('drops the answer to a write sent before the link was lost', async () => {
    const redis = fakeRedis();
    const a = redis.replica();
    a.update('s', open(5000));
    a.leave();
    await settle(redis);
    expect(a.pendingWrites()).toBe(0);
    expect(a.get('s')).toMatchObject({ until: 5000 });
  });

  it('refuses a lease it was still waiting to ask for when the link was lost, rather than leave it unanswered', async () => {
    const redis = fakeRedis();
    const a = redis.replica(() => 2000);
    a.update('s', open(1000));
    // Queued behind the write above, which is still on its way when the link goes.
    const lease = a.lease('s', (s) =>
      s.state === 'open' ? { ...s, state: 'half-open' as const, leaseUntil: 5000, lease: 'a#1' } : undefined,
    );
    expect(lease).toBeInstanceOf(Promise);
    a.leave();
    const answer = await Promise.race([lease, new Promise((r) => setTimeout(() => r('unanswered'), 200))]);
    expect(answer).toBe(false);
  });

  it('writes back the answer of a probe it took the lease for before the link was lost', async () => {
    const redis = fakeRedis();
    const a = redis.replica(() => 2000, 'a');
    const b = redis.replica(() => 2000, 'b');
    a.update('s', open(1000));
    await settle(redis);
    const won = a.lease('s', (s) =>
      s.state === 'open' ? { ...s, state: 'half-open' as const, leaseUntil: 60_000, lease: 'a#1' } : undefined,
    );
    expect(await won).toBe(true);
    await settle(redis);
    expect(b.get('s')).toMatchObject({ state: 'half-open', lease: 'a#1' });
    redis.down = true;
    a.leave();
    a.update('s', () => CLOSED); // the probe succeeded while the fleet was away
    redis.down = false;
    expect(a.rejoin(new Map(redis.values))).toBe(1);
    await settle(redis);
    expect(a.get('s')).toEqual(CLOSED);
    expect(b.get('s')).toEqual(CLOSED);
  });

  it('probes for itself 1 s after the link is lost while another replica holds the lease, rather than wait out that lease', async () => {
    const redis = fakeRedis();
    let now = 2000;
    const a = redis.replica(() => now, 'a');
    const b = redis.replica(() => now, 'b');
    a.update('s', open(1000));
    await settle(redis);
    // As the circuit book asks: a lease only where `admit` would let a probe through.
    const lease = (name: string) => (s: CircuitState) => {
      const d = admit(s, now, o);
      return d.allowed && d.probe && d.next.state === 'half-open'
        ? { ...d.next, leaseUntil: 32_000, lease: name }
        : undefined;
    };
    expect(await a.lease('s', lease('a#1'))).toBe(true);
    await settle(redis);
    expect(b.get('s')).toMatchObject({ state: 'half-open', lease: 'a#1' });
    expect(b.lease('s', lease('b#1'))).toBe(false);
    redis.down = true;
    a.leave();
    b.events.changed = [];
    b.leave();
    // a's probe answers where only a hears it; b, alone, probes for itself (and is told so), but
    // not beside a probe that may have gone out as the link went: only a second later.
    expect(a.get('s')).toMatchObject({ state: 'half-open', lease: 'a#1' });
    expect(b.events.changed).toContain('s');
    expect(b.get('s')).toMatchObject({ state: 'open', until: 3000 });
    now = 2999;
    expect(b.lease('s', lease('b#1'))).toBe(false);
    now = 3000;
    expect(b.lease('s', lease('b#1'))).toBe(true);
    expect(b.get('s')).toMatchObject({ state: 'half-open', lease: 'b#1' });
  });
});

describe('SharedCircuits given news it cannot trust', () => {
  const backend = { cas: () => Promise.resolve({ ok: true, value: '' }) };
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
