import { createRequire } from 'node:module';
import type { Redis as RedisClient } from 'ioredis';
import { SimError } from '../core/errors.js';
import { QUOTA_SCRIPT } from '../quota/quota-script.js';
import type { EpochMarker } from '../quota/shared-plan.js';
import type { QuotaScriptRunner } from '../quota/shared-quota.js';

/** The quota script on a Redis connection; closing ends the connection. */
export interface RedisQuotaRunner extends QuotaScriptRunner {
  /** Writes a group's epoch markers (one pipelined write), before any worker decides. */
  markEpochs(markers: readonly EpochMarker[]): Promise<void>;
  close(): Promise<void>;
}

/** Options of `connectRedisQuota`. */
export interface RedisQuotaOptions {
  url: string;
  /** How long one decision may take before it fails (default 2 s). */
  timeoutMs?: number;
  /** Told of a charge after the fact that failed (nobody awaits those). */
  onError?: (error: unknown) => void;
  /** Names the connection in CLIENT LIST. */
  name?: string;
}

// ioredis loads only when quotas are shared: merely loading it slows string-heavy code in the
// rest of the process (BENCHMARKS.md, branch h-hot-sim), and most simulators never need it.
let RedisCtor: typeof RedisClient | undefined;
const redisClass = (): typeof RedisClient =>
  (RedisCtor ??= (createRequire(import.meta.url)('ioredis') as { Redis: typeof RedisClient }).Redis);

type ScriptCommand = (numKeys: number, ...keysThenArgs: string[]) => Promise<unknown[]>;

/**
 * Connects to the Redis at `url` and loads the quota script, so that every decision is one
 * EVALSHA. Commands issued in the same tick go out in one write (auto-pipelining): still one
 * round trip per decision, fewer system calls under load.
 */
export async function connectRedisQuota(o: RedisQuotaOptions): Promise<RedisQuotaRunner> {
  const Redis = redisClass();
  const redis = new Redis(o.url, {
    lazyConnect: true,
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    commandTimeout: o.timeoutMs ?? 2000,
    connectTimeout: Math.max(o.timeoutMs ?? 2000, 1000),
    retryStrategy: (times) => Math.min(100 * times, 1000),
    connectionName: o.name ?? 'throttlelab:simulate',
    scripts: { tlQuota: { lua: QUOTA_SCRIPT } },
  });
  const onError = o.onError ?? (() => {});
  redis.on('error', () => {}); // each command's failure reaches its caller; reconnecting is automatic
  try {
    await redis.connect();
    await redis.script('LOAD', QUOTA_SCRIPT);
  } catch (error) {
    redis.disconnect();
    throw new SimError(
      'SIM_REDIS_UNREACHABLE',
      `Failed to connect to Redis at ${o.url.replace(/\/\/[^@/]*@/, '//***@')}: ${(error as Error).message}. Start Redis or pass another --redis-url.`,
      { cause: error },
    );
  }
  const script = (redis as unknown as { tlQuota: ScriptCommand }).tlQuota.bind(redis);
  return {
    run: (call) => script(call.keys.length, ...call.keys, ...call.args),
    fire(call) {
      script(call.keys.length, ...call.keys, ...call.args).catch(onError);
    },
    async markEpochs(markers) {
      const pipeline = redis.pipeline();
      for (const m of markers) pipeline.set(m.key, m.value, 'PX', m.ttlMs);
      for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error;
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
