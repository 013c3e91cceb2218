import { createRequire } from 'node:module';
import type { Redis as RedisClient } from 'ioredis';

/**
 * Deletes a run's keys (every key under `prefix`) from a Redis the run used but does not own, so a
 * CI service container shared by many runs does not fill up. Best effort: a Redis that has gone
 * away has nothing left to clean.
 */
export async function dropRedisPrefix(url: string, prefix: string): Promise<void> {
  // ioredis loads only here, as in redis-server.ts: loading it slows string-heavy code elsewhere.
  const { Redis } = createRequire(import.meta.url)('ioredis') as { Redis: typeof RedisClient };
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => {});
  try {
    await r.connect();
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await r.del(...keys);
    } while (cursor !== '0');
  } catch {
    // gone, or refused: nothing more to do
  } finally {
    r.disconnect();
  }
}
