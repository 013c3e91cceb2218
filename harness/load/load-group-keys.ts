import { createRequire } from 'node:module';
import type { Redis as RedisClient } from 'ioredis';
import type { LoopLag } from '../../simulator/index.js';
import type { LoadSpec } from '../scenario/schema.js';
import type { ClientOutcome } from './client-outcome.js';

/** What a load worker needs to send its segment: the same for every worker of a group. */
export interface LoadJob {
  load: LoadSpec;
  seed: number;
  runId: string;
  /** Only the variables the load's extra headers name (`${THROTTLELAB_…}`). */
  env: Record<string, string>;
  /** The router's OpenAI-compatible base URL, as the workers reach it. */
  baseUrl: string;
  /** How many workers (segments) the schedule is dealt to. */
  segments: number;
}

/** What one load worker hands back at the end. */
export interface LoadWorkerResult {
  segment: number;
  host: string;
  pid: number;
  sent: number;
  dropped: number;
  outcomes: ClientOutcome[];
  /** The worker's own event-loop delay while it sent: how far its send times can be trusted. */
  loopLag: LoopLag;
  /** Why the worker could not send its segment (the rest of the fields are then empty). */
  error?: string;
}

/** A load worker in a report: its result without the outcomes. */
export type LoadWorkerSummary = Omit<LoadWorkerResult, 'outcomes'>;

/** The Redis keys of one load group (kept apart by its id, expiring after an hour). */
export function loadGroupKeys(group: string) {
  const p = `tl:load:${group}`;
  return {
    job: `${p}:job`,
    claimed: `${p}:claimed`,
    ready: `${p}:ready`,
    go: (segment: number) => `${p}:go:${segment}`,
    stop: `${p}:stop`,
    done: `${p}:done`,
  };
}

/** Names the newest group, for `load-worker --join` without `--group`. */
export const LATEST_LOAD_GROUP = 'tl:load:latest';

/** Keys of a group live this long (s): a run that died leaves nothing behind for long. */
export const LOAD_GROUP_TTL_S = 3600;

// ioredis loads only when a load is split (see redis-server.ts for why it is not imported eagerly).
let RedisCtor: typeof RedisClient | undefined;

/** A Redis connection for a load group; callers quit it. */
export function loadGroupRedis(url: string): RedisClient {
  RedisCtor ??= (createRequire(import.meta.url)('ioredis') as { Redis: typeof RedisClient }).Redis;
  const r = new RedisCtor(url, { maxRetriesPerRequest: 2, connectionName: 'throttlelab:load' });
  r.on('error', () => {}); // each command's failure reaches its caller
  return r;
}
