import { describe, expect, it } from 'vitest';
import { fortyAMinuteScenario, postChat, startSimulate } from '../helpers/simulate-workers.js';
import { useScenarioWithRedis } from '../helpers/use-scenario-with-redis.js';

// `simulate --join`: a worker started apart from a `simulate --workers` group (as on another
// host: its own port, the scenario read from Redis) shares the group's quotas exactly.

const CHAT = '/openai/v1/chat/completions';
const SCENARIO = fortyAMinuteScenario('joined', 3);
const env = useScenarioWithRedis('tl-join-', SCENARIO);

describe('simulate --join', () => {
  it('serves the group scenario on a port of its own and holds the shared quota exactly', async () => {
    const group = await startSimulate(env.file, ['--workers', '1', '--redis-url', env.redis.url]);
    const joined = await startSimulate('', ['--join', env.redis.url]);
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
  }, 300_000);
});
