import { createRequire } from 'node:module';
import type { Redis as RedisClient } from 'ioredis';
import { faultKeys } from '../../simulator/index.js';

/** What a `simulate --workers` primary publishes so that a worker on another host can join it. */
export interface SimulateGroup {
  /** The scenario's YAML, so the joining host needs no copy of the file. */
  scenarioText: string;
  seed: number;
  /** The quota keys' prefix every worker of the group shares. */
  prefix: string;
  /** Workers the primary forked (a joined worker's share while Redis is down is 1/(workers + 1)). */
  workers: number;
  /** When the group started (epoch ms): every worker counts the scenario's fault times from it. */
  faultsFrom: number;
}

/** Names the newest group on a Redis, for `simulate --join` without `--group`. */
const LATEST = 'tl:sim:latest';
const groupKey = (prefix: string) => `tl:sim:group:${prefix}`;

let RedisCtor: typeof RedisClient | undefined;
function connect(url: string): RedisClient {
  RedisCtor ??= (createRequire(import.meta.url)('ioredis') as { Redis: typeof RedisClient }).Redis;
  const r = new RedisCtor(url, { maxRetriesPerRequest: 2, connectionName: 'throttlelab:simulate-group' });
  r.on('error', () => {});
  return r;
}

/**
 * Publishes a group while its primary serves (the key lives a day at most); the returned
 * function withdraws it (its shared faults too), which is also how joined workers learn that the
 * group has stopped.
 */
export async function publishSimulateGroup(url: string, group: SimulateGroup): Promise<() => Promise<void>> {
  const redis = connect(url);
  await redis.set(groupKey(group.prefix), JSON.stringify(group), 'EX', 86_400);
  await redis.set(LATEST, group.prefix, 'EX', 86_400);
  return async () => {
    const faults = faultKeys(group.prefix);
    await redis.del(groupKey(group.prefix), LATEST, faults.hash, faults.seq).catch(() => 0);
    redis.disconnect();
  };
}

/** Reads a published group (the newest when `prefix` is absent); undefined when none is open. */
export async function readSimulateGroup(url: string, prefix?: string): Promise<SimulateGroup | undefined> {
  const redis = connect(url);
  try {
    const name = prefix ?? (await redis.get(LATEST));
    const text = name ? await redis.get(groupKey(name)) : null;
    return text ? (JSON.parse(text) as SimulateGroup) : undefined;
  } finally {
    redis.disconnect();
  }
}

/** Resolves once the group is withdrawn (its primary stopped), polled every `everyMs`. */
export function groupWithdrawn(url: string, prefix: string, signal: AbortSignal, everyMs = 1000): Promise<void> {
  const redis = connect(url);
  return new Promise<void>((resolve) => {
    const done = () => {
      clearInterval(timer);
      redis.disconnect();
      resolve();
    };
    const timer = setInterval(() => {
      redis.exists(groupKey(prefix)).then(
        (n) => n === 0 && done(),
        () => {},
      );
    }, everyMs);
    signal.addEventListener('abort', done, { once: true });
  });
}
