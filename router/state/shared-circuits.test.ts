import { describe, expect, it } from 'vitest';
import { admit, CLOSED, type CircuitState } from '../core/circuit.js';
import { fakeCircuitRedis as fakeRedis, fail, o, open, settle } from '../../test/helpers/fake-circuit-redis.js';

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
