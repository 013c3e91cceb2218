import { createRequire } from 'node:module';
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import type { Clock } from '../core/clock.js';
import { CAS_SCRIPT, ITEM_SCRIPT, type redisKeys } from './redis-keys.js';
import type { CircuitBackend } from './circuit-backend.js';

const DAY = 86_400_000;
const MGET_CHUNK = 500;

// ioredis loads only when a router shares its state (about 25 MiB of RSS a memory-store router
// never pays): required here, synchronously, on the first Redis store made.
let RedisCtor: typeof RedisClient | undefined;
const redisClass = (): typeof RedisClient =>
  (RedisCtor ??= (createRequire(import.meta.url)('ioredis') as { Redis: typeof RedisClient }).Redis);

/** A replica's two connections to Redis, and the circuits' compare-and-set script on the first. */
export interface RedisConnections {
  /** Commands: fail at once while Redis is away (nothing queues), and time out after `timeoutMs`. */
  cmd: RedisClient;
  /** The fleet's channel: may queue its SUBSCRIBE until connected; it sends nothing else. */
  sub: RedisClient;
  /** The CAS script (redis-keys.ts) with its keys and arguments in order. */
  cas(...args: Array<string | number>): Promise<[number, string]>;
  /** The item script (redis-keys.ts) with its keys and arguments in order. */
  item(...args: Array<string | number>): Promise<number>;
}

/** Opens a replica's connections to the Redis at `url`; both reconnect on their own. */
export function connectRedis(o: { url: string; replica: string; timeoutMs: number }): RedisConnections {
  const options: RedisOptions = {
    lazyConnect: false,
    enableOfflineQueue: false,
    commandTimeout: o.timeoutMs,
    connectTimeout: Math.max(o.timeoutMs, 1000),
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times) => Math.min(100 * times, 1000),
    connectionName: `throttlelab:${o.replica}`,
  };
  const Redis = redisClass();
  const scripts = {
    tlCas: { lua: CAS_SCRIPT, numberOfKeys: 2 },
    tlItem: { lua: ITEM_SCRIPT, numberOfKeys: 2 },
  };
  const cmd = new Redis(o.url, { ...options, scripts });
  const sub = new Redis(o.url, { ...options, enableOfflineQueue: true, commandTimeout: undefined });
  const defined = cmd as unknown as { tlCas: RedisConnections['cas']; tlItem: RedisConnections['item'] };
  return { cmd, sub, cas: defined.tlCas.bind(cmd), item: defined.tlItem.bind(cmd) };
}

/**
 * The circuits' compare-and-set through the CAS script (numbered and announced on the fleet's
 * channel), and the read of stored values that confirms what the channel says.
 */
export function circuitBackend(redis: RedisConnections, keys: ReturnType<typeof redisKeys>): CircuitBackend {
  return {
    async cas(scope, expected, state, ttlMs) {
      const [ok, value] = await redis.cas(
        keys.circuit(scope),
        keys.seq,
        expected,
        state,
        ttlMs,
        keys.channel,
        scope,
        7 * DAY,
      );
      return { ok: Number(ok) === 1, value: String(value ?? '') };
    },
    async read(scopes) {
      const values: string[] = [];
      for (let i = 0; i < scopes.length; i += MGET_CHUNK) {
        const chunk = await redis.cmd.mget(...scopes.slice(i, i + MGET_CHUNK).map((s) => keys.circuit(s)));
        values.push(...chunk.map((v) => v ?? ''));
      }
      return values;
    },
  };
}

/** Closes both connections: politely where they are up, at once where they are not. */
async function quitRedis(redis: RedisConnections): Promise<void> {
  await Promise.all(
    [redis.cmd, redis.sub].map((c) =>
      c.status === 'ready'
        ? c.quit().then(
            () => {},
            () => c.disconnect(),
          )
        : Promise.resolve(c.disconnect()),
    ),
  );
}

/**
 * Runs `goodbye` (the store's last writes), then closes the connections politely, all within
 * `deadlineMs` on `clock`; past it both connections are dropped at once, whatever Redis does (a
 * paused Redis answers nothing, and QUIT on the channel's connection has no timeout of its own).
 * Dropped either way at the end: nothing keeps the process alive.
 */
export async function closeWithin(
  clock: Clock,
  deadlineMs: number,
  redis: RedisConnections,
  goodbye: () => Promise<void>,
): Promise<void> {
  const ac = new AbortController();
  const polite = goodbye()
    .catch(() => {})
    .then(() => quitRedis(redis));
  try {
    await Promise.race([polite, clock.sleep(deadlineMs, ac.signal).catch(() => {})]);
  } finally {
    ac.abort();
    redis.cmd.disconnect();
    redis.sub.disconnect();
  }
}
