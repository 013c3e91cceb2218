import { randomUUID } from 'node:crypto';
import { dropRedisPrefix } from '../../harness/fleet/drop-redis-prefix.js';
import { systemClock } from '../../router/engine/system-clock.js';
import { createRedisStore, type RedisStore, type RedisStoreOptions } from '../../router/state/redis-store.js';

/** The team's shared Redis (`.ci/run` starts it); tests use a unique key prefix each. */
export const SHARED_REDIS_URL = process.env.THROTTLELAB_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A key prefix no other test (or engineer) uses. */
export const uniquePrefix = (what = 'test') => `throttlelab-${what}:${randomUUID().slice(0, 8)}:`;

/** Deletes every key under `prefix` (the harness's own clean-up for a Redis it does not own). */
export const dropPrefix = dropRedisPrefix;

/** Redis stores of one fleet on `url` under one prefix, each joined before it is returned. */
export function redisFleet(url: string, prefix = uniquePrefix(), extra: Partial<RedisStoreOptions> = {}) {
  const stores: RedisStore[] = [];
  let n = 0;
  return {
    prefix,
    stores,
    async replicas(count: number, wait = true): Promise<RedisStore[]> {
      const made = Array.from({ length: count }, () =>
        createRedisStore({
          url,
          keyPrefix: prefix,
          replica: `r${n++}`,
          clock: systemClock,
          timeoutMs: 500,
          flushMs: 10,
          heartbeatMs: 200,
          ...extra,
        }),
      );
      stores.push(...made);
      if (wait) {
        const joined = await Promise.all(made.map((s) => s.joined(5000)));
        if (!joined.every(Boolean)) throw new Error(`Redis at ${url} did not answer: is it running?`);
      }
      return made;
    },
    async close(): Promise<void> {
      await Promise.all(stores.map((s) => s.close()));
      await dropPrefix(url, prefix);
    },
  };
}
