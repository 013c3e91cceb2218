import type { Redis as RedisClient } from 'ioredis';
import type { redisKeys } from './redis-keys.js';

const MGET_CHUNK = 500;

/** Every circuit the fleet stored, by scope (`<seq>|<state JSON>`): SCAN for the names, MGET in chunks. */
export async function readCircuits(cmd: RedisClient, keys: ReturnType<typeof redisKeys>): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  let cursor = '0';
  const names: string[] = [];
  do {
    const [next, batch] = await cmd.scan(cursor, 'MATCH', keys.circuitPattern, 'COUNT', 1000);
    cursor = next;
    names.push(...batch);
  } while (cursor !== '0');
  for (let i = 0; i < names.length; i += MGET_CHUNK) {
    const chunk = names.slice(i, i + MGET_CHUNK);
    const values = await cmd.mget(...chunk);
    chunk.forEach((name, j) => {
      const v = values[j];
      if (typeof v === 'string') found.set(name.slice(keys.circuitPrefix.length), v);
    });
  }
  return found;
}
