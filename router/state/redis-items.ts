import type { SharedItems } from '../core/shared-items.js';
import type { RedisConnections } from './redis-connections.js';
import type { redisKeys } from './redis-keys.js';

/** The JSON of a kept item, if a value read from Redis is one: an object with this id and a type. */
function validItem(value: unknown, id: string): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const item = JSON.parse(value) as { id?: unknown; type?: unknown } | null;
    return typeof item === 'object' && item !== null && item.id === id && typeof item.type === 'string'
      ? value
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A fleet's Responses items in Redis: a hash per caller (item id → JSON) and a sorted set of its
 * ids by write time, both written by one script that holds the caller to its cap and renews both
 * keys' TTL (redis-keys.ts `ITEM_SCRIPT`). What is read back is checked before it is trusted: a
 * value that is not an item with the id asked for counts as not kept.
 */
export function redisItems(redis: RedisConnections, keys: ReturnType<typeof redisKeys>): SharedItems {
  return {
    async load(scope, ids) {
      const values = await redis.cmd.hmget(keys.items(scope), ...ids);
      const found = new Map<string, string>();
      values.forEach((value, i) => {
        const item = validItem(value, ids[i]!);
        if (item !== undefined) found.set(ids[i]!, item);
      });
      return found;
    },
    async save(scope, id, json, bounds) {
      await redis.item(keys.items(scope), keys.itemOrder(scope), id, json, bounds.maxPerCaller, bounds.ttlMs);
    },
  };
}
