import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCircuit, type CircuitOptions, type CircuitState } from '../../router/core/circuit.js';
import type { StoreEvent } from '../../router/state/redis-store.js';
import { startRedisServer, type RedisServer } from '../../harness/fleet/redis-server.js';
import { eventually } from '../helpers/eventually.js';
import { redisFleet } from '../helpers/redis.js';

// Each test stops, restarts or pauses Redis: they use a redis-server of their own on a free port.

const o: CircuitOptions = {
  failureThreshold: 3,
  openMs: 1000,
  maxOpenMs: 3_600_000,
  maxBackoffMs: 8000,
  jitterRatio: 0,
  probeLeaseMs: 5000,
};
const openUntil = (until: number) => (s: CircuitState) =>
  openCircuit(s, until, Date.now(), 'rate limited', o, { next: () => 0 });
const FAR = Date.now() + 600_000;

describe('Redis store when Redis is slow, down or restarted empty', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('serves on local state while Redis is down, says so once, and rejoins when it returns with its data', async () => {
    const events: StoreEvent[] = [];
    const fleet = redisFleet(server.url, undefined, {
      timeoutMs: 200,
      heartbeatMs: 100,
      onEvent: (e) => events.push(e),
    });
    try {
      const [a, b] = await fleet.replicas(2);
      a!.update('limit:p/k/one', openUntil(FAR));
      await eventually(() => expect(b!.get('limit:p/k/one')).toMatchObject({ until: FAR }));
      events.length = 0;

      await server.stop({ keepData: true });
      await eventually(() => expect([a!.health().shared, b!.health().shared]).toEqual([false, false]));
      a!.update('limit:p/k/two', openUntil(FAR + 1000));
      expect(a!.get('limit:p/k/two')).toMatchObject({ until: FAR + 1000 });
      expect(a!.health()).toMatchObject({ shared: false, pendingWrites: 0, fallbacks: 1 });
      expect(a!.lease('limit:p/k/one', () => undefined)).toBe(false);
      // Nothing piles up while Redis is away: changes stay local, no write waits for it.
      for (let i = 0; i < 10_000; i++) a!.update(`limit:p/k/m${i % 50}`, openUntil(FAR + i));
      expect(a!.health().pendingWrites).toBe(0);
      expect([...a!.entries()]).toHaveLength(52);
      // Several reconnections fail meanwhile; the log hears of the outage once per replica.
      await new Promise((r) => setTimeout(r, 600));
      expect(events.filter((e) => e.kind === 'left')).toHaveLength(2);

      await server.start();
      await eventually(() => expect([a!.health().shared, b!.health().shared]).toEqual([true, true]));
      await eventually(() => expect(b!.get('limit:p/k/two')).toMatchObject({ until: FAR + 1000 }));
      expect(b!.get('limit:p/k/one')).toMatchObject({ until: FAR });
      const joined = events.filter((e) => e.kind === 'joined');
      expect(joined).toHaveLength(2);
      expect(joined.every((e) => e.kind === 'joined' && e.rejoin)).toBe(true);
      expect(a!.health()).toMatchObject({ shared: true, fallbacks: 1, rejoins: 1 });
    } finally {
      await fleet.close();
    }
  });

  it('rejoins a Redis restarted empty, writing back the windows still open', async () => {
    const events: StoreEvent[] = [];
    const fleet = redisFleet(server.url, undefined, {
      timeoutMs: 200,
      heartbeatMs: 100,
      onEvent: (e) => events.push(e),
    });
    try {
      const [a, b] = await fleet.replicas(2);
      a!.update('limit:p/k/m', openUntil(FAR));
      await eventually(() => expect(b!.get('limit:p/k/m')).toMatchObject({ until: FAR }));
      events.length = 0;
      await server.stop({ keepData: false });
      await server.start();
      await eventually(() => expect(events.filter((e) => e.kind === 'joined')).toHaveLength(2));
      const c = (await fleet.replicas(1))[0]!;
      expect(c.get('limit:p/k/m')).toMatchObject({ state: 'open', until: FAR });
      expect(
        events.filter((e) => e.kind === 'joined').reduce((n, e) => n + (e.kind === 'joined' ? e.pushed : 0), 0),
      ).toBeGreaterThanOrEqual(1);
    } finally {
      await fleet.close();
    }
  });

  it('falls back when Redis answers too slowly, and rejoins once it answers in time', async () => {
    const events: StoreEvent[] = [];
    const fleet = redisFleet(server.url, undefined, {
      timeoutMs: 150,
      heartbeatMs: 100,
      onEvent: (e) => events.push(e),
    });
    try {
      const [a, b] = await fleet.replicas(2);
      events.length = 0;
      await server.pause(1200);
      a!.update('limit:p/k/slow', openUntil(FAR));
      expect(a!.get('limit:p/k/slow')).toMatchObject({ until: FAR });
      await eventually(() => expect(a!.health().shared).toBe(false));
      expect(events.find((e) => e.kind === 'left')).toMatchObject({ reason: 'a command timed out' });
      await eventually(() => expect(a!.health().shared).toBe(true), 8000);
      await eventually(() => expect(b!.get('limit:p/k/slow')).toMatchObject({ until: FAR }), 8000);
    } finally {
      await fleet.close();
    }
  });

  it('starts on local state when Redis is not there yet, and joins when it comes', async () => {
    const events: StoreEvent[] = [];
    await server.stop({ keepData: false });
    const fleet = redisFleet(server.url, undefined, {
      timeoutMs: 200,
      heartbeatMs: 100,
      onEvent: (e) => events.push(e),
    });
    try {
      const [a] = await fleet.replicas(1, false);
      a!.update('limit:p/k/m', openUntil(FAR));
      await eventually(() => expect(events).toEqual([expect.objectContaining({ kind: 'left', atStart: true })]));
      await server.start();
      expect(await a!.joined(5000)).toBe(true);
      expect(events.at(-1)).toMatchObject({ kind: 'joined', rejoin: false, pushed: 1 });
    } finally {
      await fleet.close();
    }
  });
});
