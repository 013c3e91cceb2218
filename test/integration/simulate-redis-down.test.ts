import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chatBurst, oneKeyScenario, startSimulate } from '../helpers/simulate-workers.js';
import { useScenarioWithRedis } from '../helpers/use-scenario-with-redis.js';

// `simulate --workers 2` while its (private) redis-server is killed and restarted empty: the
// workers keep answering, each enforcing half of every limit alone, mark each attempt they
// decided alone in the ledger, and say from those marks when they did.

const SCENARIO = oneKeyScenario('redis-down', 4);
const env = useScenarioWithRedis('tl-redis-down-', SCENARIO);

describe('simulate --workers with Redis down', () => {
  it('answers from per-worker shares of each limit while Redis is killed, and marks those attempts', async () => {
    const ledger = join(env.dir, 'ledger.jsonl');
    const sim = await startSimulate(env.file, ['--workers', '2', '--redis-url', env.redis.url, '--ledger-out', ledger]);
    const before = await chatBurst(sim.port, 10);
    await env.redis.stop({ keepData: false });
    const during = await chatBurst(sim.port, 60);
    await env.redis.start();
    // Reconnecting takes the client a moment: until then answers still come from the shares.
    const after = await chatBurst(sim.port, 10);
    const { code, out } = await sim.stop();
    expect(code, out).toBe(0);
    expect(before).toEqual(Array.from({ length: 10 }, () => 200));
    expect(new Set([...during, ...after])).not.toContain(500);
    // Two workers, each alone with 40 / 2 = 20 a minute.
    const admitted = during.filter((s) => s === 200).length;
    expect(admitted).toBeGreaterThan(0);
    expect(admitted).toBeLessThanOrEqual(40);
    expect(during.filter((s) => s === 429).length).toBe(60 - admitted);
    // Every attempt of the burst while Redis was down is marked, none before it.
    const rows = (await readFile(ledger, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { degraded?: true });
    expect(rows).toHaveLength(80);
    expect(rows.slice(0, 10).some((r) => r.degraded)).toBe(false);
    const marked = rows.filter((r) => r.degraded === true).length;
    expect(marked).toBeGreaterThanOrEqual(60);
    expect(marked).toBeLessThanOrEqual(70);
    // The summary's degraded windows are made of those marks, each with the outage it fell in.
    const lines = [
      ...out.matchAll(
        /DEGRADED worker \d: (\d+) attempts decided without Redis, arriving from \S+ to \S+: it enforced 1\/2 of each limit alone; Redis did not answer from \S+ (for \d+ ms|to the end)/g,
      ),
    ];
    expect(lines.length, out).toBeGreaterThan(0);
    expect(lines.reduce((n, m) => n + Number(m[1]), 0)).toBe(marked);
  }, 300_000);
});
