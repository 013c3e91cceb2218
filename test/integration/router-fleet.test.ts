import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { checkRetryAfter } from '../../harness/checks/retry-after.js';
import { checkSingleProbe } from '../../harness/checks/single-probe.js';
import type { ClientOutcome } from '../../harness/load/client-outcome.js';
import { Redis } from 'ioredis';
import type { Router } from '../../router/router.js';
import type { RedisStore } from '../../router/state/redis-store.js';
import { systemClock } from '../../router/engine/system-clock.js';
import { startRedisServer, type RedisServer } from '../../harness/fleet/redis-server.js';
import type { LedgerRow } from '../../simulator/index.js';
import { dropPrefix, SHARED_REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { routerFor } from '../helpers/router-fixture.js';
import { scenarioFrom } from '../helpers/scenario.js';
import { serve, type Served } from '../helpers/serve.js';

// Two reference routers in one process, each with its own store, as two replicas behind a load
// balancer; the simulator's ledger is the evidence. A 429 with a 1.5 s wait reaches one replica.

const WAIT_MS = 1500;
const SIM = `
version: 1
name: router-fleet
providers:
  - id: openai
    vendor: openai
    models: [gpt-4o-mini]
    keys: [{ id: main, value: sk-sim-openai }]
    latency: { completionTokens: 4 }
faults:
  - { id: burst, kind: status, status: 429, at: 300ms, match: { firstN: 1 }, hint: { form: ms, after: ${WAIT_MS}ms } }
`;

let served: Served | undefined;
let routers: Router[] = [];
let redis: RedisServer | undefined;
const prefixes: string[] = [];
afterEach(async () => {
  await Promise.all(routers.map((r) => r.close()));
  await served?.close();
  await redis?.close();
  for (const p of prefixes.splice(0)) await dropPrefix(SHARED_REDIS_URL, p);
  [served, routers, redis] = [undefined, [], undefined];
});

async function fleet(store: 'memory' | 'redis', url = SHARED_REDIS_URL, extra: object = {}): Promise<Router[]> {
  const keyPrefix = uniquePrefix('router-fleet');
  prefixes.push(keyPrefix);
  const config = {
    deadline: { default: '4s' },
    store: store === 'redis' ? { kind: 'redis', url, keyPrefix, timeout: '200ms' } : { kind: 'memory' },
    ...extra,
  };
  routers = ['a', 'b'].map((replica, i) => routerFor(served!, config, { replica, seed: 10 + i }));
  for (const r of routers) await (r.store as Partial<RedisStore>).joined?.(5000);
  return routers;
}

/** Every key under `prefix` in the shared Redis, with its value (hashes as objects). */
async function everythingUnder(prefix: string): Promise<Record<string, unknown>> {
  const r = new Redis(SHARED_REDIS_URL);
  const out: Record<string, unknown> = {};
  let cursor = '0';
  do {
    const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    for (const k of keys) out[k] = (await r.type(k)) === 'hash' ? await r.hgetall(k) : await r.get(k);
  } while (cursor !== '0');
  r.disconnect();
  return out;
}

/**
 * Sends `count` requests, one every `everyMs`, alternating between the replicas; returns their
 * statuses and the worst event-loop stall while they ran.
 */
async function drive(replicas: Router[], count: number, everyMs: number, during?: (i: number) => void) {
  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  // News between replicas goes through redis-server, another process a busy machine can hold
  // back: its worst round trip during the run is measured as the loop's stalls are.
  const pinger = new Redis(SHARED_REDIS_URL, { lazyConnect: true });
  await pinger.connect().catch(() => {});
  let redisMs = 0;
  let driving = true;
  const pinging = (async () => {
    while (driving) {
      const t = performance.now();
      await pinger.ping().catch(() => {});
      redisMs = Math.max(redisMs, performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const answers: Array<Promise<number>> = [];
  // What each client saw (when it asked and when it was answered): the checks judge a wait only
  // where a client request was open during it.
  const outcomes: ClientOutcome[] = [];
  for (let i = 0; i < count; i++) {
    during?.(i);
    const id = `fleet-${i}`;
    const sentAt = Date.now();
    answers.push(
      replicas[i % replicas.length]!.route(
        { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: `hello [tl:${id}]` }] },
        { forward: { 'x-throttlelab-correlation-id': id } },
      ).then((r) => {
        const status = r.kind === 'stream' ? 200 : r.status;
        const replica = i % replicas.length;
        outcomes.push({ id, model: 'openai/gpt-4o-mini', sentAt, endAt: Date.now(), status, replica } as ClientOutcome);
        return status;
      }),
    );
    await new Promise((r) => setTimeout(r, everyMs));
  }
  const statuses = await Promise.all(answers);
  lag.disable();
  driving = false;
  await pinging;
  pinger.disconnect();
  // A publish and its delivery: two trips through Redis.
  return { statuses, lagMs: lag.max / 1e6 + 2 * redisMs, outcomes };
}

/**
 * The retry-after and single-probe verdicts on the ledger, and the attempts inside the window. A
 * request sent before its replica could read the news of the 429 is in flight, not a violation:
 * the grace is 50 ms plus the worst event-loop stall measured during the run (everything shares
 * one loop here, and a busy machine can hold the news back that long) plus two of Redis's worst
 * round trips (the news is published, then delivered).
 */
function judge(rows: readonly LedgerRow[], lagMs: number, outcomes: readonly ClientOutcome[]) {
  const grace = 50 + lagMs;
  const scenario = scenarioFrom(
    `${SIM}\nload: { rate: 1, duration: 1s }\nexpect: { retryAfter: { inFlightGrace: ${Math.ceil(grace)}ms } }`,
  );
  const limited = rows.find((r) => r.status === 429)!;
  const end = limited.firstByteAt! + WAIT_MS;
  const inside = rows.filter((r) => r.arrivalAt > limited.firstByteAt! + grace && r.arrivalAt < end - 10);
  const after = rows.filter((r) => r.arrivalAt >= end - 10).sort((x, y) => x.arrivalAt - y.arrivalAt);
  const firstAnswer = after[0]?.firstByteAt ?? Infinity;
  return {
    retryAfter: checkRetryAfter({ rows, outcomes, scenario }),
    singleProbe: checkSingleProbe({ rows, outcomes, scenario }),
    inside: inside.length,
    herd: after.filter((r) => r.arrivalAt < firstAnswer).length,
  };
}

describe('two router replicas sharing state through Redis', () => {
  it('keeps every replica out of a window one replica was told of, sends exactly one probe when it ends, and never a key to Redis', async () => {
    served = await serve(SIM);
    const replicas = await fleet('redis');
    // Everything the fleet says on its channel, and everything it keeps, is read for secrets after.
    const prefix = prefixes.at(-1)!;
    const listener = new Redis(SHARED_REDIS_URL);
    const heard: string[] = [];
    listener.on('message', (_c: string, m: string) => heard.push(m));
    await listener.subscribe(`${prefix}events`);
    const { statuses, lagMs, outcomes } = await drive(replicas, 40, 60);
    expect(statuses.every((s) => s === 200)).toBe(true);
    await listener.quit();
    const stored = await everythingUnder(prefix);
    expect(heard.length).toBeGreaterThan(10);
    expect(Object.keys(stored).some((k) => k.startsWith(`${prefix}c:limit:openai/main/gpt-4o-mini`))).toBe(true);
    expect(JSON.stringify([heard, stored])).not.toContain('sk-sim-openai');
    const v = judge(served.sim.ledger.query({}).rows, lagMs, outcomes);
    expect(v.inside).toBe(0);
    expect(v.herd).toBe(1);
    expect(v.retryAfter.verdict).toBe('pass');
    expect(v.singleProbe).toMatchObject({ verdict: 'pass', value: 1 });
  });

  it('lets the other replica walk into the window when each keeps its state in memory (the checks see it)', async () => {
    served = await serve(SIM);
    const { lagMs, outcomes } = await drive(await fleet('memory'), 40, 60);
    const v = judge(served.sim.ledger.query({}).rows, lagMs, outcomes);
    expect(v.inside).toBeGreaterThan(0);
    expect(v.retryAfter.verdict).toBe('fail');
  });

  it('answers every request while Redis goes down and comes back empty, then shares again', async () => {
    redis = await startRedisServer();
    served = await serve(SIM);
    const replicas = await fleet('redis', redis.url);
    const outage: Array<Promise<void>> = [];
    const { statuses } = await drive(replicas, 50, 50, (i) => {
      if (i === 12) outage.push(redis!.stop({ keepData: false }));
      if (i === 30) outage.push(Promise.all(outage).then(() => redis!.start()));
    });
    await Promise.all(outage);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    for (const r of replicas) {
      await expect.poll(() => r.store.health().shared, { timeout: 5000 }).toBe(true);
      expect(r.store.health()).toMatchObject({ fallbacks: 1, rejoins: 1 });
      expect(r.metrics()).toMatch(/throttlelab_router_shared_state\{store="redis"\} 1/);
      expect(r.metrics()).toMatch(/throttlelab_router_shared_state_fallbacks_total\{store="redis"\} 1/);
    }
  });

  it("holds a forged 3650-day window to the config's maxOpenFor, and counts malformed messages in /metrics", async () => {
    served = await serve(SIM);
    const replicas = await fleet('redis', SHARED_REDIS_URL, { breaker: { maxOpenFor: '1m', jitterRatio: 0 } });
    const prefix = prefixes.at(-1)!;
    const forger = new Redis(SHARED_REDIS_URL);
    const until = Date.now() + 3650 * 86_400_000;
    const state = JSON.stringify({ state: 'open', until, reason: 'forged', opens: 1 });
    await forger.publish(`${prefix}events`, 'not json');
    // Stored as well as announced: a message alone is undone by the read that confirms it.
    await forger.set(`${prefix}c:provider:openai`, `99999|${state}`);
    await forger.publish(`${prefix}events`, JSON.stringify({ c: 'provider:openai', v: `99999|${state}` }));
    await forger.quit();
    for (const r of replicas) {
      await expect.poll(() => r.store.get('provider:openai')?.state, { timeout: 5000 }).toBe('open');
      // On the router's own clock: it and Date.now() may differ by tens of milliseconds.
      const now = systemClock.now();
      expect((r.store.get('provider:openai') as { until: number }).until).toBeLessThanOrEqual(now + 60_001);
      expect(r.metrics()).toMatch(/throttlelab_router_shared_state_rejected_total\{store="redis"\} 1/);
    }
  });
});
