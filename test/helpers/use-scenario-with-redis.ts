import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startRedisServer, type RedisServer } from '../../harness/index.js';

/** What the tests of a file share: a temporary folder, its `scenario.yaml`, and a redis-server of their own. */
export interface ScenarioWithRedis {
  readonly dir: string;
  readonly file: string;
  readonly redis: RedisServer;
}

/**
 * Before the tests of the calling file, writes `scenario` to `scenario.yaml` in a new temporary
 * folder named from `prefix` and starts a redis-server of their own; after them, stops it and
 * removes the folder. Read the fields inside the tests, not when the file is loaded.
 */
export function useScenarioWithRedis(prefix: string, scenario: string): ScenarioWithRedis {
  let dir: string | undefined;
  let redis: RedisServer | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    await writeFile(join(dir, 'scenario.yaml'), scenario);
    redis = await startRedisServer({ startTimeoutMs: 20_000 });
  }, 30_000);
  afterAll(async () => {
    await redis?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`useScenarioWithRedis: the ${what} is read before beforeAll ran`);
    return value;
  };
  return {
    get dir() {
      return started(dir, 'folder');
    },
    get file() {
      return join(started(dir, 'folder'), 'scenario.yaml');
    },
    get redis() {
      return started(redis, 'redis-server');
    },
  };
}
