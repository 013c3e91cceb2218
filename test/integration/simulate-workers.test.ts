import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../simulator/core/rng.js';
import { createSimulator, startSimulatorServer } from '../../simulator/index.js';
import { scenarioFrom } from '../helpers/scenario.js';
import { postChat, startSimulate } from '../helpers/simulate-workers.js';
import { useScenarioWithRedis } from '../helpers/use-scenario-with-redis.js';

// `simulate --workers 2` against real worker processes on loopback. Every quota here is exact
// whatever the timing: sliding windows of a minute or more and token buckets whose refill over
// the whole test is below one request, so a busy machine changes how long it takes, not what is
// answered. Requests are sent one after another, so both sides see the same order. Output tokens
// are not charged to the token limit here: that charge is sent after the answer, unawaited, and
// may reach Redis after the next request's decision (shared-quota.test.ts compares it exactly).

const CHAT = '/openai/v1/chat/completions';

const SCENARIO = `
version: 1
name: shared-quota
seed: 7
providers:
  - id: openai
    vendor: openai
    models: [gpt-4o-mini]
    keys:
      - { id: a, value: sk-sim-a, org: acme }
      - { id: b, value: sk-sim-b, org: acme }
      - { id: c, value: sk-sim-c, org: solo }
    accounting: { chargeOutputToTokens: false }
    quotas:
      - { metric: requests, limit: 60, per: 1m, algorithm: sliding-window, scope: key }
      - { metric: requests, limit: 50, per: 2h, algorithm: token-bucket, scope: org }
      - { metric: tokens, limit: 2500, per: 10m, algorithm: sliding-window, scope: key }
`;

const env = useScenarioWithRedis('tl-workers-', SCENARIO);

/** A seeded sequence of (key, prompt): the same for both sides of the differential test. */
function sequence(n: number): Array<[string, string]> {
  const rng = createRng(11);
  const keys = ['sk-sim-a', 'sk-sim-b', 'sk-sim-c'];
  return Array.from({ length: n }, (_, i) => [
    keys[Math.floor(rng.next() * keys.length)]!,
    `request ${i} ${'word '.repeat(Math.floor(rng.next() * 40))}`,
  ]);
}

const tally = (statuses: number[], keys: string[]) => {
  const out: Record<string, Record<number, number>> = {};
  statuses.forEach((s, i) => {
    const k = (out[keys[i]!] ??= {});
    k[s] = (k[s] ?? 0) + 1;
  });
  return out;
};

describe('simulate --workers 2', () => {
  it('holds a shared 60-a-minute quota exactly, serves from both workers, and ledgers every request', async () => {
    const ledger = join(env.dir, 'ledger.jsonl');
    const one = join(env.dir, 'one-key.yaml');
    await writeFile(
      one,
      SCENARIO.replace(/ {6}- \{ metric: requests, limit: 50[^\n]*\n/, '').replace(
        / {6}- \{ metric: tokens[^\n]*\n/,
        '',
      ),
    );
    const sim = await startSimulate(one, ['--workers', '2', '--ledger-out', ledger]);
    const statuses: number[] = [];
    // Ten at a time: quick enough to stay well inside the minute, concurrent enough to race the workers.
    for (let i = 0; i < 150; i += 10)
      statuses.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, (_, j) => postChat(sim.port, CHAT, 'sk-sim-a', `hello ${i + j}`)),
        )),
      );
    const { code, out } = await sim.stop();
    expect(code, out).toBe(0);
    const perWorker = /per worker: (\d+), (\d+)\)/.exec(out);
    expect(perWorker, out).not.toBeNull();
    expect(Number(perWorker![1]) + Number(perWorker![2])).toBe(150);
    expect(Number(perWorker![1])).toBeGreaterThan(0);
    expect(Number(perWorker![2])).toBeGreaterThan(0);
    const rows = (await readFile(ledger, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; status: number; arrivalAt: number });
    expect(rows).toHaveLength(150);
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i));
    expect(rows.every((r, i) => i === 0 || r.arrivalAt >= rows[i - 1]!.arrivalAt)).toBe(true);
    expect(rows.filter((r) => r.status === 200)).toHaveLength(statuses.filter((s) => s === 200).length);
    const admitted = rows.filter((r) => r.status === 200).map((r) => r.arrivalAt);
    if (rows.at(-1)!.arrivalAt - rows[0]!.arrivalAt < 55_000) {
      // The usual case: every arrival inside one minute, so exactly the limit is answered.
      expect(admitted).toHaveLength(60);
      expect(statuses.filter((s) => s === 429)).toHaveLength(90);
    } else {
      // A starved machine spread the arrivals over more than a minute: the window slid, so more
      // than 60 may be answered in all, but never more than 60 inside any one minute.
      expect(admitted.length).toBeGreaterThanOrEqual(60);
      for (const [i, at] of admitted.entries())
        expect(admitted.slice(i).filter((t) => t < at + 60_000).length).toBeLessThanOrEqual(60);
    }
  }, 300_000);

  it('answers a request sequence with the same 200/429 counts per key as one in-memory simulator', async () => {
    const requests = sequence(160);
    const keys = requests.map(([k]) => k);

    const alone = createSimulator(scenarioFrom(SCENARIO), { seed: 7 });
    const server = await startSimulatorServer(alone, { port: 0 });
    const inMemory: number[] = [];
    for (const [key, prompt] of requests) inMemory.push(await postChat(server.port, CHAT, key, prompt));
    await server.close();

    const sim = await startSimulate(env.file, ['--workers', '2', '--redis-url', env.redis.url]);
    const shared: number[] = [];
    for (const [key, prompt] of requests) shared.push(await postChat(sim.port, CHAT, key, prompt));
    const { code, out } = await sim.stop();
    expect(code, out).toBe(0);

    expect(tally(shared, keys)).toEqual(tally(inMemory, keys));
    expect(shared).toEqual(inMemory);
    // Every limit bound somewhere: the comparison covered refusals of each kind, not only answers.
    expect(new Set(inMemory)).toEqual(new Set([200, 429]));
    expect(inMemory.filter((s) => s === 200).length).toBeGreaterThan(30);
  }, 300_000);
});
