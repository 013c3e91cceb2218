import { hostname } from 'node:os';
import { startLoopLagMonitor, systemClock } from '../../simulator/index.js';
import { HarnessError } from '../errors.js';
import { runOpenLoop } from './open-loop.js';
import { createRequestPlanner } from './request-plan.js';
import {
  LATEST_LOAD_GROUP,
  loadGroupKeys,
  loadGroupRedis,
  type LoadJob,
  type LoadWorkerResult,
} from './load-group-keys.js';

/** Options of `joinLoadGroup`. */
export interface JoinOptions {
  redisUrl: string;
  /** The group to join; the newest one on that Redis when absent. */
  group?: string;
  /** How long to wait for a group to be opened (ms; a worker may start before the run). */
  groupWaitMs?: number;
  /** How long to wait for the start signal once ready (ms). */
  startTimeoutMs?: number;
  /** Told what the worker is doing, one line at a time. */
  note?: (line: string) => void;
}

/** BLPOP's timeout in whole seconds (0 would block forever). */
const blockSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** The newest open group, polled for until `waitMs` have passed. */
async function newestGroup(redis: ReturnType<typeof loadGroupRedis>, waitMs: number): Promise<string | null> {
  const giveUpAt = Date.now() + waitMs;
  for (;;) {
    const group = await redis.get(LATEST_LOAD_GROUP);
    if (group || Date.now() >= giveUpAt) return group;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * One load worker: takes the next free segment of a group's schedule, says it is ready, waits
 * for the shared start time, sends its segment's arrivals (measuring its own loop lag), and
 * hands its outcomes back through Redis. A stop the run sets is polled twice a second.
 */
export async function joinLoadGroup(o: JoinOptions): Promise<LoadWorkerResult> {
  const redis = loadGroupRedis(o.redisUrl);
  const note = o.note ?? (() => {});
  try {
    const group = o.group ?? (await newestGroup(redis, o.groupWaitMs ?? 60_000));
    if (!group)
      throw new HarnessError(
        'HARNESS_LOAD_GROUP_MISSING',
        'Failed to join a load group: none is open on this Redis. Start `throttlelab run --load-workers N` first.',
      );
    const keys = loadGroupKeys(group);
    const text = await redis.get(keys.job);
    if (!text)
      throw new HarnessError(
        'HARNESS_LOAD_GROUP_MISSING',
        `Failed to join load group ${group}: it does not exist (or expired). Check --group.`,
      );
    const job = JSON.parse(text) as LoadJob;
    const segment = (await redis.incr(keys.claimed)) - 1;
    if (segment >= job.segments)
      throw new HarnessError(
        'HARNESS_LOAD_GROUP_FULL',
        `Failed to join load group ${group}: its ${job.segments} segments are all taken.`,
      );
    note(`load worker: segment ${segment + 1} of ${job.segments} of group ${group}`);
    const base = { segment, host: hostname(), pid: process.pid };
    try {
      const plan = createRequestPlanner(job.load, job.seed, job.runId, job.env);
      await redis.rpush(keys.ready, String(segment));
      const go = await redis.blpop(keys.go(segment), blockSeconds(o.startTimeoutMs ?? 120_000));
      if (!go)
        throw new HarnessError(
          'HARNESS_LOAD_GROUP_TIMEOUT',
          `Failed to start segment ${segment + 1}: the run gave no start signal. Is it still running?`,
        );
      const startAt = Number(go[1]);
      const stop = new AbortController();
      const poll = setInterval(() => {
        redis.exists(keys.stop).then(
          (n) => n > 0 && stop.abort(),
          () => {},
        );
      }, 500);
      const monitor = startLoopLagMonitor();
      let result;
      try {
        result = await runOpenLoop(job.load, { baseUrl: job.baseUrl }, plan, systemClock, undefined, stop.signal, {
          segment: { index: segment, count: job.segments },
          startAt,
        });
      } finally {
        clearInterval(poll);
      }
      const out: LoadWorkerResult = {
        ...base,
        sent: result.outcomes.length,
        dropped: result.dropped,
        outcomes: result.outcomes,
        loopLag: monitor.stop(),
      };
      await redis.rpush(keys.done, JSON.stringify(out));
      return out;
    } catch (error) {
      const failed: LoadWorkerResult = {
        ...base,
        sent: 0,
        dropped: 0,
        outcomes: [],
        loopLag: { p50Ms: 0, p99Ms: 0, maxMs: 0, samples: 0 },
        error: (error as Error).message,
      };
      await redis.rpush(keys.done, JSON.stringify(failed)).catch(() => {});
      throw error;
    }
  } finally {
    redis.disconnect();
  }
}
