import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../harness/index.js';
import { createRng } from '../../simulator/core/rng.js';
import type { Costs, QuotaRule } from '../../simulator/quota/quota-rule.js';
import { QuotaSet, type AdmitResult } from '../../simulator/quota/quota-set.js';
import { epochKey, hashTag, planEpochMarkers } from '../../simulator/quota/shared-plan.js';
import { SharedQuota, type DegradedWindow } from '../../simulator/quota/shared-quota.js';
import { connectRedisQuota, type RedisQuotaRunner } from '../../simulator/transports/redis-quota-runner.js';

// The shared engine (the Lua script on a private redis-server) against QuotaSet, the in-memory
// engine it mirrors: the same seeded history of requests at the same times gets the same answer,
// the same binding limit and the same headers from both. Times are given, not read: no wall clock.

const rule = (over: Partial<QuotaRule>): QuotaRule => ({
  id: 'r',
  metric: 'requests',
  limit: 5,
  windowMs: 10_000,
  algorithm: 'token-bucket',
  scope: 'key',
  sharedModels: false,
  ...over,
});

const RULE_SETS: Record<string, QuotaRule[]> = {
  'token bucket': [rule({}), rule({ id: 't', metric: 'tokens', limit: 900, windowMs: 60_000, scope: 'org' })],
  'fixed window': [rule({ algorithm: 'fixed-window', limit: 3, windowMs: 5_000, scope: 'org', sharedModels: true })],
  'sliding window': [
    rule({ algorithm: 'sliding-window', limit: 6 }),
    rule({ id: 'i', metric: 'input-tokens', algorithm: 'sliding-window', limit: 700, windowMs: 30_000 }),
  ],
  'concurrency and output debt': [
    rule({ id: 'c', metric: 'concurrency', limit: 2, windowMs: 0, scope: 'provider' }),
    rule({ id: 'o', metric: 'output-tokens', limit: 300, windowMs: 20_000, sharedModels: true }),
  ],
};

const CALLERS = [
  { keyId: 'a', org: 'acme' },
  { keyId: 'b', org: 'acme' },
  { keyId: 'c', org: 'other' },
];

/** What a client sees of an answer: everything that reaches headers, bodies and the ledger. */
function seen(q: Pick<QuotaSet, 'view' | 'waitFor'>, r: AdmitResult, costs: Costs, now: number) {
  const buckets = r.ok ? r.ticket.buckets : r.buckets;
  const views = q.view(buckets, now).map((v) => [v.rule.id, v.remaining, Math.round(v.resetInMs)]);
  if (!r.ok) return { ok: false, rule: r.violation.rule.id, used: r.violation.used, waitMs: r.violation.waitMs, views };
  return { ok: true, emptyForMs: Math.round(q.waitFor(buckets, costs, now)), views };
}

let redis: RedisServer;
let runner: RedisQuotaRunner;

beforeAll(async () => {
  redis = await startRedisServer({ startTimeoutMs: 20_000 });
  runner = await connectRedisQuota({ url: redis.url, timeoutMs: 10_000 });
}, 30_000);

afterAll(async () => {
  await runner?.close();
  await redis?.close();
});

describe('SharedQuota on Redis', () => {
  it.each(Object.keys(RULE_SETS))('answers a seeded history as the in-memory quota does (%s)', async (name) => {
    const rules = RULE_SETS[name]!;
    const memory = new QuotaSet(rules);
    const shared = new SharedQuota(runner, `t-${name.replace(/ /g, '-')}`);
    const provider = { id: 'p', rules, countRejected: name === 'token bucket' };
    const rng = createRng(7);
    const held: Array<{ mem: AdmitResult & { ok: true }; gate: AdmitResult & { ok: true } }> = [];
    let now = 1_700_000_000_000;
    let admitted = 0;
    let refused = 0;
    for (let i = 0; i < 160; i++) {
      now += Math.floor(rng.next() * 900);
      const caller = CALLERS[Math.floor(rng.next() * CALLERS.length)]!;
      const model = rng.next() < 0.5 ? 'm1' : 'm2';
      const input = Math.floor(rng.next() * 200);
      const costs: Costs = { requests: 1, tokens: input, 'input-tokens': input, 'output-tokens': 0, concurrency: 1 };
      const mine = memory.admit(caller, model, costs, now);
      if (!mine.ok && provider.countRejected) memory.chargeRejected(mine.buckets, now);
      const gate = await shared.decide(provider, caller, model, costs, now);
      const theirs = gate.admit(caller, model, costs, now);
      expect(seen(gate, theirs, costs, now), `request ${i}`).toEqual(seen(memory, mine, costs, now));
      if (mine.ok && theirs.ok) {
        admitted++;
        held.push({ mem: mine, gate: theirs });
      } else refused++;
      // Answers end out of order: release a random one, charging its output after the fact.
      if (held.length > 0 && rng.next() < 0.6) {
        const [done] = held.splice(Math.floor(rng.next() * held.length), 1);
        const out = { tokens: 40, 'output-tokens': 40, concurrency: -1 };
        memory.settle(done!.mem.ticket, out, now);
        done!.gate.ticket.gate.settle(done!.gate.ticket, out, now);
      }
    }
    // Both outcomes occurred, so the comparison covered admissions and refusals alike.
    expect(admitted).toBeGreaterThan(10);
    expect(refused).toBeGreaterThan(10);
  });
});

describe('SharedQuota on Redis that lost its state', () => {
  // 6 a 10 s window over two workers: 3 each while the shared counters are lost.
  const rules = [rule({ algorithm: 'sliding-window', limit: 6 })];
  const provider = { id: 'p', rules, countRejected: false };
  const caller = CALLERS[0]!;
  const costs: Costs = { requests: 1, tokens: 0, 'input-tokens': 0, 'output-tokens': 0, concurrency: 0 };
  const T0 = 1_700_000_000_000;

  async function withRedis<T>(use: (r: Redis) => Promise<T>): Promise<T> {
    const r = new Redis(redis.url);
    try {
      return await use(r);
    } finally {
      r.disconnect();
    }
  }

  async function group(prefix: string) {
    await runner.markEpochs(planEpochMarkers(prefix, provider, [caller], T0));
    const windows: DegradedWindow[] = [];
    const shared = new SharedQuota(runner, prefix, { share: 2, onWindow: (w) => windows.push({ ...w }) });
    const ask = async (now: number) => {
      const gate = await shared.decide(provider, caller, 'm', costs, now);
      const r = gate.admit(caller, 'm', costs, now);
      const remaining = gate.view(r.ok ? r.ticket.buckets : r.buckets, now)[0]!.remaining;
      return { ok: r.ok, degraded: gate.degraded, remaining };
    };
    return { shared, windows, ask, marker: epochKey(hashTag(prefix, provider, caller)) };
  }

  it('decides alone on its share less what it admitted once the counters vanish, then shares again a window later', async () => {
    const { ask, windows } = await group('lost-flushed');
    expect(await ask(T0)).toEqual({ ok: true, degraded: false, remaining: 5 });
    expect(await ask(T0 + 100)).toEqual({ ok: true, degraded: false, remaining: 4 });
    await withRedis((r) => r.flushall());
    const lostAt = T0 + 1000;
    // Its share is 3 and it admitted 2 within the window: one more, then refusals.
    expect(await ask(lostAt)).toMatchObject({ ok: true, degraded: true });
    expect(await ask(lostAt + 4000)).toMatchObject({ ok: false, degraded: true });
    expect(windows).toEqual([expect.objectContaining({ from: lostAt, code: 'SIM_QUOTA_STATE_LOST' })]);
    expect(await ask(lostAt + 8000)).toMatchObject({ ok: false, degraded: true });
    // The two admitted before the loss slide out of its share's window.
    expect(await ask(lostAt + 9500)).toMatchObject({ ok: true, degraded: true });
    // A window after the loss: shared again, and Redis holds what it admitted alone in that
    // window (the one at lostAt + 9500; the one at lostAt has just slid out).
    expect(await ask(lostAt + 10_000)).toEqual({ ok: true, degraded: false, remaining: 6 - 2 });
    expect(windows[1]).toMatchObject({ from: lostAt, to: lostAt + 10_000 });
  });

  it('lets another worker learn the time of a loss from the marker', async () => {
    const first = await group('lost-seen');
    await withRedis((r) => r.del(first.marker));
    expect(await first.ask(T0 + 2000)).toMatchObject({ degraded: true });
    const second = new SharedQuota(runner, 'lost-seen', { share: 2 });
    await second.decide(provider, caller, 'm', costs, T0 + 5000);
    expect(second.windows).toEqual([expect.objectContaining({ from: T0 + 2000, code: 'SIM_QUOTA_STATE_LOST' })]);
  });

  it.each([
    ['e:1e300', false],
    ['e:-1', false],
    ['e:nan', true],
    ['lost:1e300', true],
    ['lost:inf', true],
    ['garbage', true],
    ['', true],
  ])('survives a forged marker %j, read as lost: %s, and leaves one that expires', async (value, lost) => {
    const prefix = `forged-${value.replace(/[^a-z0-9]/g, '')}-${String(lost)}`;
    const { ask, shared, marker } = await group(prefix);
    await withRedis((r) => r.set(marker, value));
    const now = T0 + 3000;
    expect(await ask(now)).toMatchObject({ ok: true, degraded: lost });
    expect(shared.windows.map((w) => w.from)).toEqual(lost ? [now] : []);
    const ttl = await withRedis((r) => r.pttl(marker));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(86_400_000 + 10_000);
  });
});
