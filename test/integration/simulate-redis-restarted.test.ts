import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { chatBurst, oneKeyScenario, startSimulate } from '../helpers/simulate-workers.js';
import { useScenarioWithRedis } from '../helpers/use-scenario-with-redis.js';

// `simulate --workers 2` while its (private) Redis loses every counter and stays connected
// (FLUSHALL, as a restart with no persistence leaves it): the workers notice from the missing
// epoch marker, decide on their own shares of each limit, charged with what each admitted
// before, and mark those attempts degraded, instead of admitting a second full limit.

const LIMIT = 60;
const env = useScenarioWithRedis('tl-redis-restarted-', oneKeyScenario('redis-restarted', 5, LIMIT));

async function flushAll(url: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.flushall();
  } finally {
    redis.disconnect();
  }
}

describe('simulate --workers with Redis emptied mid-run', () => {
  it('decides on per-worker shares, net of what each admitted, once the counters vanish, and marks it', async () => {
    const ledger = join(env.dir, 'ledger.jsonl');
    const sim = await startSimulate(env.file, ['--workers', '2', '--redis-url', env.redis.url, '--ledger-out', ledger]);
    const before = await chatBurst(sim.port, LIMIT);
    await flushAll(env.redis.url);
    const after = await chatBurst(sim.port, 80);
    const { code, out } = await sim.stop();
    expect(code, out).toBe(0);
    expect(before).toEqual(Array.from({ length: LIMIT }, () => 200));
    expect(new Set(after)).not.toContain(500);
    // Each worker alone enforces 60 / 2 = 30 a minute less what it admitted itself before: with
    // the 60 split b and 60 - b, the two have at most max(0, 30 - b) + max(0, b - 30) <= 30 left.
    // Without the marker the emptied Redis admits 60 more.
    const admitted = after.filter((s) => s === 200).length;
    expect(admitted, out).toBeLessThanOrEqual(LIMIT / 2);
    expect(after.filter((s) => s === 429).length).toBe(80 - admitted);
    // Every attempt after the loss is marked, none before it.
    const rows = (await readFile(ledger, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { degraded?: true });
    expect(rows).toHaveLength(LIMIT + 80);
    expect(rows.slice(0, LIMIT).some((r) => r.degraded)).toBe(false);
    expect(rows.slice(LIMIT).every((r) => r.degraded === true)).toBe(true);
    // Each worker said once when the state was lost, and the summary names the loss.
    expect(out.match(/SIM_QUOTA_STATE_LOST/g)?.length, out).toBeGreaterThanOrEqual(2);
    const lines = [
      ...out.matchAll(
        /DEGRADED worker \d: (\d+) attempts decided without Redis, arriving from \S+ to \S+: it enforced 1\/2 of each limit alone; Redis lost the shared quota state at \S+ \(SIM_QUOTA_STATE_LOST\)/g,
      ),
    ];
    expect(lines.length, out).toBeGreaterThan(0);
    expect(lines.reduce((n, m) => n + Number(m[1]), 0)).toBe(80);
  }, 300_000);
});
