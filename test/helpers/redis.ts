import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { systemClock } from '../../router/engine/system-clock.js';
import { createRedisStore, type RedisStore, type RedisStoreOptions } from '../../router/state/redis-store.js';

/** The team's shared Redis (`.ci/run` starts it); tests use a unique key prefix each. */
export const SHARED_REDIS_URL = process.env.THROTTLELAB_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A key prefix no other test (or engineer) uses. */
export const uniquePrefix = (what = 'test') => `throttlelab-${what}:${randomUUID().slice(0, 8)}:`;

/** Deletes every key under `prefix`. */
export async function dropPrefix(url: string, prefix: string): Promise<void> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await r.connect();
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await r.del(...keys);
    } while (cursor !== '0');
  } catch {
    // Redis is gone (a test stopped it): nothing to clean.
  } finally {
    r.disconnect();
  }
}

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
