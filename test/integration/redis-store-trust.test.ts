import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { FleetFacts, FleetLink } from '../../router/core/fleet.js';
import type { StoreEvent } from '../../router/state/redis-store.js';
import { eventually } from '../helpers/eventually.js';
import { redisFleet, SHARED_REDIS_URL } from '../helpers/redis.js';

// Anyone who can PUBLISH on the fleet's channel or write its keys speaks for the fleet: what a
// replica reads from Redis is held to the bounds of its own decisions (maxOpenFor here: 1 min).

const DAY = 86_400_000;
const BOUNDS = { maxOpenMs: 60_000, jitterRatio: 0, probeLeaseMs: 5_000 };
const fleets: Array<ReturnType<typeof redisFleet>> = [];
const clients: Redis[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.disconnect();
  for (const f of fleets.splice(0)) await f.close();
});

function fleetWithEvents() {
  const events: StoreEvent[] = [];
  const fleet = redisFleet(SHARED_REDIS_URL, undefined, { bounds: BOUNDS, onEvent: (e) => events.push(e) });
  fleets.push(fleet);
  const raw = new Redis(SHARED_REDIS_URL);
  clients.push(raw);
  return { fleet, events, raw };
}

const openFor = (ms: number) => ({ state: 'open', until: Date.now() + ms, reason: 'forged', opens: 1 });

describe('a Redis store given values beyond bounds or malformed', () => {
  it('opens at most maxOpenFor on a forged value of 3650 days stored and announced', async () => {
    const { fleet, raw } = fleetWithEvents();
    const [a, b] = await fleet.replicas(2);
    const value = `999|${JSON.stringify(openFor(3650 * DAY))}`;
    await raw.set(`${fleet.prefix}c:limit:openai/main/gpt-4o`, value);
    await raw.publish(`${fleet.prefix}events`, JSON.stringify({ c: 'limit:openai/main/gpt-4o', v: value }));
    for (const replica of [a!, b!]) {
      await eventually(() => expect(replica.get('limit:openai/main/gpt-4o')).toMatchObject({ state: 'open' }));
      const s = replica.get('limit:openai/main/gpt-4o') as { until: number };
      expect(s.until).toBeLessThanOrEqual(Date.now() + BOUNDS.maxOpenMs + 1);
    }
  });

  it('sees another replica open a circuit after a forged message numbered 2^53 - 1 on its channel', async () => {
    const { fleet, raw } = fleetWithEvents();
    const [victim, other, marker] = await fleet.replicas(3);
    const scope = 'limit:openai/main/gpt-4o';
    const forged = { c: scope, v: `${Number.MAX_SAFE_INTEGER}|${JSON.stringify({ state: 'closed', failures: 0 })}` };
    await raw.publish(`${fleet.prefix}events`, JSON.stringify(forged));
    // A real change after it: once the victim has it, it has heard the forged message too.
    marker!.update('limit:openai/main/marker', () => openFor(1000) as never);
    await eventually(() => expect(victim!.get('limit:openai/main/marker')).toMatchObject({ state: 'open' }));
    other!.update(scope, () => openFor(30_000) as never);
    await eventually(() => expect(victim!.get(scope)).toMatchObject({ state: 'open', reason: 'forged' }), 2000);
    expect(victim!.health()).toMatchObject({ shared: true, fallbacks: 0, errors: 0 });
  });

  it('writes its own changes to a scope after a forged message numbered 2^53 - 1, neither looping nor leaving the fleet', async () => {
    const { fleet, raw } = fleetWithEvents();
    const [victim, other] = await fleet.replicas(2);
    const scope = 'limit:openai/main/gpt-4o';
    const forged = { c: scope, v: `${Number.MAX_SAFE_INTEGER}|${JSON.stringify({ state: 'closed', failures: 0 })}` };
    for (let i = 0; i < 3; i++) {
      await raw.publish(`${fleet.prefix}events`, JSON.stringify(forged));
      victim!.update(scope, () => ({ state: 'closed', failures: i + 1 }));
      await eventually(() => expect(other!.get(scope)).toEqual({ state: 'closed', failures: i + 1 }), 2000);
    }
    expect(await raw.get(`${fleet.prefix}c:${scope}`)).toMatch(/^\d{1,3}\|\{"state":"closed","failures":3\}$/);
    expect(victim!.health()).toMatchObject({ shared: true, fallbacks: 0, errors: 0, pendingWrites: 0 });
  });

  it('drops malformed messages, counts them and says so once, and keeps serving the fleet', async () => {
    const { fleet, events, raw } = fleetWithEvents();
    const [a, b] = await fleet.replicas(2);
    const channel = `${fleet.prefix}events`;
    const bad = [
      'not json {',
      '{"c":42,"v":"1|{}"}',
      '{"r":"intruder","h":[["openai/main/gpt-4o",-5,0]]}',
      '{"r":"intruder","h":[["openai/main/gpt-4o",1,1e999]]}',
      '{"r":"intruder","b":"lots"}',
      `{"c":"limit:x","v":"5|${JSON.stringify({ state: 'open', until: 'soon', reason: 'r', opens: 1 }).replace(/"/g, '\\"')}"}`,
    ];
    for (const m of bad) await raw.publish(channel, m);
    // A real change after them: once it is in, every message before it was heard.
    a!.update('limit:openai/main/after', () => openFor(1000) as never);
    await eventually(() => expect(b!.get('limit:openai/main/after')).toMatchObject({ state: 'open' }));
    expect(b!.health().rejected).toBe(bad.length);
    const said = events.filter((e) => e.kind === 'rejected');
    expect(said).toHaveLength(2); // once per replica
    for (const e of said) expect(JSON.stringify(e)).not.toMatch(/intruder|lots|1e999/);
    expect(b!.get('limit:x')).toBeUndefined();
  });

  it('takes reports from at most 1,000 replicas at once', async () => {
    const fleet = redisFleet(SHARED_REDIS_URL, undefined, { bounds: BOUNDS, heartbeatMs: 60_000 });
    fleets.push(fleet);
    const raw = new Redis(SHARED_REDIS_URL);
    clients.push(raw);
    const [a, b] = await fleet.replicas(2);
    const p = raw.pipeline();
    for (let i = 0; i < 1001; i++) p.publish(`${fleet.prefix}events`, JSON.stringify({ r: `intruder-${i}`, h: [] }));
    await p.exec();
    a!.update('limit:openai/main/after', () => openFor(1000) as never);
    await eventually(() => expect(b!.get('limit:openai/main/after')).toMatchObject({ state: 'open' }));
    // Replica a's own reports may count among them: one of the 1,001 (or two) is one too many.
    expect(b!.health().peers).toBe(1000);
    expect(b!.health().rejected).toBeGreaterThanOrEqual(1);
  });

  it('clamps state persisted in Redis beyond bounds as it reads it on joining', async () => {
    const { fleet, raw } = fleetWithEvents();
    const far = Date.now() + 3650 * DAY;
    await raw.set(`${fleet.prefix}c:limit:openai/main/gpt-4o`, `12|${JSON.stringify(openFor(3650 * DAY))}`);
    await raw.set(`${fleet.prefix}c:limit:openai/main/broken`, `13|{"state":"open","until":-1}`);
    await raw.hset(`${fleet.prefix}limits`, {
      'openai/main/gpt-4o': JSON.stringify({
        refill: 'window',
        requests: { limit: 10, remaining: 0, resetAt: far, observedAt: far },
      }),
      'openai/main/junk': '{"refill":"window","requests":{"limit":"ten"}}',
    });
    const [store] = await fleet.replicas(1, false);
    const applied: FleetFacts[] = [];
    const link: FleetLink = {
      collect: () => ({ limits: [], budget: [], usage: [] }),
      apply: (_from, facts) => applied.push(facts),
      expire: () => {},
    };
    store!.link(link);
    expect(await store!.joined(5000)).toBe(true);
    // The store's clock is fractional: a millisecond of slack.
    const now = Date.now();
    const s = store!.get('limit:openai/main/gpt-4o') as { until: number };
    expect(s.until).toBeLessThanOrEqual(now + BOUNDS.maxOpenMs + 1);
    expect(store!.get('limit:openai/main/broken')).toBeUndefined();
    expect(applied).toHaveLength(1);
    expect(applied[0]!.limits).toHaveLength(1);
    const [target, limits] = applied[0]!.limits[0]!;
    expect(target).toBe('openai/main/gpt-4o');
    expect(limits.requests!.resetAt).toBeLessThanOrEqual(now + BOUNDS.maxOpenMs + 1);
    expect(limits.requests!.observedAt).toBeLessThanOrEqual(now + 1);
    expect(store!.health().rejected).toBe(2);
  });
});
