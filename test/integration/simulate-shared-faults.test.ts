import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  callControl,
  chatBurst,
  oneKeyScenario,
  startSimulate,
  type SimulateProcess,
} from '../helpers/simulate-workers.js';
import { useScenarioWithRedis } from '../helpers/use-scenario-with-redis.js';

// `simulate --workers 2`: a live fault added, changed or removed through the control API reaches
// every worker (the call lands on one of them), through the group's Redis; so does one read from
// the group's hash, where a forged entry is skipped; and the scenario's timeline is the group's.

// A scenario fault far in the future: it never fires here, but shows where each worker's timeline starts.
const SCENARIO = `${oneKeyScenario('shared-faults', 6, 10_000)}
faults:
  - { id: later, kind: status, status: 429, at: 1h }
`;
const env = useScenarioWithRedis('tl-shared-faults-', SCENARIO);
const OUTAGE = { id: 'outage', kind: 'status', status: 503, match: { key: ['a'] } };

/** Twenty chat requests, each on a new connection: the workers' port hands them to both. */
const burst = (port: number) => chatBurst(port, 20);

type Stopped = Awaited<ReturnType<SimulateProcess['stop']>>;

const all = (status: number) => Array.from({ length: 20 }, () => status);

/** The group's key prefix, as its primary published it. */
async function groupPrefix(url: string): Promise<string> {
  const redis = new Redis(url);
  try {
    return (await redis.get('tl:sim:latest'))!;
  } finally {
    redis.disconnect();
  }
}

/** Expects both workers to have served: the summary counts attempts per worker. */
function expectBothServed(out: string): void {
  const perWorker = /per worker: (\d+), (\d+)\)/.exec(out);
  expect(Number(perWorker?.[1]), out).toBeGreaterThan(0);
  expect(Number(perWorker?.[2]), out).toBeGreaterThan(0);
}

describe('simulate --workers 2: live faults', () => {
  it('applies a fault added, disabled, enabled and removed through the control API on both workers, on one timeline', async () => {
    const sim = await startSimulate(env.file, ['--workers', '2', '--redis-url', env.redis.url]);
    const prefix = await groupPrefix(env.redis.url);
    let stopped: Stopped;
    try {
      // One timeline: both workers count the scenario's fault times from the group's start.
      const starts = new Set<number>();
      for (let i = 0; i < 6; i++) {
        const { body } = await callControl(sim.port, 'GET', '/faults');
        for (const f of (body as { faults: Array<{ id: string; startAt: number }> }).faults)
          if (f.id === 'later') starts.add(f.startAt);
      }
      expect(starts.size).toBe(1);
      expect(await burst(sim.port)).toEqual(all(200));
      const added = await callControl(sim.port, 'POST', '/faults', OUTAGE);
      expect(added.status).toBe(201);
      expect(await burst(sim.port)).toEqual(all(503));
      expect((await callControl(sim.port, 'PATCH', '/faults/outage', { enabled: false })).status).toBe(200);
      expect(await burst(sim.port)).toEqual(all(200));
      expect((await callControl(sim.port, 'PATCH', '/faults/outage', { enabled: true, status: 502 })).status).toBe(200);
      expect(await burst(sim.port)).toEqual(all(502));
      expect((await callControl(sim.port, 'DELETE', '/faults/outage')).status).toBe(204);
      expect(await burst(sim.port)).toEqual(all(200));
      // Removed on both: each worker answers 404 to removing it again.
      for (let i = 0; i < 4; i++) expect((await callControl(sim.port, 'DELETE', '/faults/outage')).status).toBe(404);
    } finally {
      stopped = await sim.stop();
    }
    expect(stopped.code, stopped.out).toBe(0);
    expectBothServed(stopped.out);
    // The group's faults go with it.
    const redis = new Redis(env.redis.url);
    try {
      expect(await redis.exists(`${prefix}:faults`, `${prefix}:faults:seq`)).toBe(0);
    } finally {
      redis.disconnect();
    }
  }, 120_000);

  it('reads the group hash after a bad message on the channel, and skips the forged entries in it', async () => {
    const sim = await startSimulate(env.file, ['--workers', '2', '--redis-url', env.redis.url]);
    let stopped: Stopped;
    const prefix = await groupPrefix(env.redis.url);
    const redis = new Redis(env.redis.url);
    try {
      const valid = { spec: { ...OUTAGE, at: 0, match: { key: ['a'] } }, enabled: true, startAt: Date.now() };
      await redis.hset(`${prefix}:faults`, {
        outage: JSON.stringify(valid),
        forged: JSON.stringify({ spec: { id: 'forged', kind: 'status', status: 999 }, enabled: true, startAt: 0 }),
        other: JSON.stringify({ ...valid, spec: { ...valid.spec, id: 'outage' } }),
        nojson: '{"spec":',
        huge: JSON.stringify({ ...valid, spec: { ...valid.spec, id: 'huge', message: 'x'.repeat(100_000) } }),
        ['y'.repeat(200)]: JSON.stringify(valid),
      });
      await redis.incrby(`${prefix}:faults:seq`, 5);
      await redis.publish(`${prefix}:faults:changes`, 'not a change');
      await expect.poll(() => burst(sim.port), { timeout: 10_000, interval: 200 }).toEqual(all(503));
    } finally {
      redis.disconnect();
      stopped = await sim.stop();
    }
    const { code, out } = stopped;
    expect(code, out).toBe(0);
    expectBothServed(out);
    expect(out).toMatch(/skipped the shared fault "forged" read from Redis: status:/);
    expect(out).toMatch(/skipped the shared fault "other" read from Redis: spec.id: expected "other"/);
    expect(out).toMatch(/skipped the shared fault "nojson" read from Redis: not JSON/);
    expect(out).toMatch(/skipped 2 shared faults read from Redis: too many, or names or entries too long/);
  }, 120_000);

  it('applies on a worker joining late the faults the group has, and on the group those it changes', async () => {
    const group = await startSimulate(env.file, ['--workers', '1', '--redis-url', env.redis.url]);
    let joined: SimulateProcess | undefined;
    let stopped: Stopped;
    try {
      expect((await callControl(group.port, 'POST', '/faults', OUTAGE)).status).toBe(201);
      joined = await startSimulate('', ['--join', env.redis.url]);
      expect(await burst(joined.port)).toEqual(all(503));
      expect((await callControl(joined.port, 'DELETE', '/faults/outage')).status).toBe(204);
      expect(await burst(group.port)).toEqual(all(200));
    } finally {
      stopped = await group.stop();
      await joined?.stop();
    }
    expect(stopped.code, stopped.out).toBe(0);
  }, 120_000);

  it('refuses a fault with 503 SIM_FAULT_NOT_SHARED while Redis is down, and applies it nowhere', async () => {
    const sim = await startSimulate(env.file, ['--workers', '2', '--redis-url', env.redis.url]);
    let stopped: Stopped;
    try {
      await env.redis.stop({ keepData: false });
      const refused = await callControl(sim.port, 'POST', '/faults', OUTAGE);
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ error: { code: 'SIM_FAULT_NOT_SHARED' } });
      for (let i = 0; i < 4; i++) {
        const { body } = await callControl(sim.port, 'GET', '/faults');
        expect((body as { faults: Array<{ id: string }> }).faults.map((f) => f.id)).toEqual(['later']);
      }
    } finally {
      await env.redis.start();
      stopped = await sim.stop();
    }
    expect(stopped.code, stopped.out).toBe(0);
  }, 120_000);
});
