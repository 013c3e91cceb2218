import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { oneKeyScenario, postChat, startSimulate } from '../helpers/simulate-workers.js';
import { useScenarioWithRedis } from '../helpers/use-scenario-with-redis.js';

// `simulate --join`: a worker started apart from a `simulate --workers` group (as on another
// host: its own port, the scenario read from Redis) shares the group's quotas exactly, and its
// attempts reach the primary's --ledger-out through the group's Redis stream.

const CHAT = '/openai/v1/chat/completions';
const SCENARIO = oneKeyScenario('joined', 3);
const env = useScenarioWithRedis('tl-join-', SCENARIO);

/** A group of one worker writing `ledger`, and a worker that joins it through Redis. */
async function groupAndJoiner(ledger: string, extra: string[] = []) {
  const group = await startSimulate(env.file, [
    '--workers',
    '1',
    '--redis-url',
    env.redis.url,
    '--ledger-out',
    ledger,
    ...extra,
  ]);
  const joined = await startSimulate('', ['--join', env.redis.url]);
  return { group, joined };
}

describe('simulate --join', () => {
  it('serves the group scenario on a port of its own, holds the shared quota exactly and ledgers it all', async () => {
    const ledger = join(env.dir, 'ledger.jsonl');
    const { group, joined } = await groupAndJoiner(ledger);
    expect(joined.port).not.toBe(group.port);
    const statuses: number[] = [];
    for (let i = 0; i < 100; i += 10)
      statuses.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, (_, j) =>
            postChat(j % 2 ? joined.port : group.port, CHAT, 'sk-sim-a', `hi ${i + j}`),
          ),
        )),
      );
    const stopped = await group.stop();
    expect(stopped.code, stopped.out).toBe(0);
    // The joined worker stops by itself once its group is gone.
    const left = await joined.stop();
    expect(left.out).toMatch(/joined group tl:\w+ \(seed 3\)/);
    expect(statuses.filter((s) => s === 200)).toHaveLength(40);
    expect(statuses.filter((s) => s === 429)).toHaveLength(60);
    const servedHere = /stopped after (\d+) attempts/.exec(left.out);
    expect(Number(servedHere?.[1])).toBe(50);
    // One ledger: the joined worker's 50 attempts with the primary's own 50, numbered afresh.
    expect(stopped.out).toMatch(/ledger: 100 attempts from 1 workers and 1 joined \(j-\w+: 50\) merged/);
    const rows = (await readFile(ledger, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; status: number; arrivalAt: number });
    expect(rows).toHaveLength(statuses.length);
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i));
    expect(rows.filter((r) => r.status === 200)).toHaveLength(40);
    expect(rows.every((r, i) => i === 0 || r.arrivalAt >= rows[i - 1]!.arrivalAt)).toBe(true);
  }, 300_000);

  it('fails the merged ledger, naming the worker, when a joined worker dies before it says it stopped', async () => {
    const ledger = join(env.dir, 'ledger-lost.jsonl');
    // The primary would wait 30 s by default for the dead joiner's last rows.
    const { group, joined } = await groupAndJoiner(ledger, ['--joiner-timeout', '3s']);
    for (let i = 0; i < 6; i++) await postChat(i % 2 ? joined.port : group.port, CHAT, 'sk-sim-a', `hi ${i}`);
    process.kill(joined.pid, 'SIGKILL');
    await joined.stop();
    const stopped = await group.stop();
    expect(stopped.code, stopped.out).toBe(2);
    expect(stopped.out).toMatch(
      /--ledger-out \S+ is incomplete: joined worker j-\w+ did not say it stopped within 3 s \(--joiner-timeout\); \d of its attempts are in the file/,
    );
  }, 300_000);
});
