import { randomUUID } from 'node:crypto';
import { HarnessError } from '../errors.js';
import type { ClientOutcome } from './client-outcome.js';
import {
  LATEST_LOAD_GROUP,
  LOAD_GROUP_TTL_S,
  loadGroupKeys,
  loadGroupRedis,
  type LoadJob,
  type LoadWorkerResult,
  type LoadWorkerSummary,
} from './load-group-keys.js';

/** A load split between worker processes, coordinated through Redis. */
export interface LoadGroup {
  /** The group's id: `load-worker --join URL --group ID` takes a segment of it. */
  readonly id: string;
  /**
   * Waits for every segment to be taken and ready, starts them all at one time, and merges what
   * they saw. `onStarted` is told the shared start time (fault times count from there).
   */
  run(signal?: AbortSignal, onStarted?: (startAt: number) => void): Promise<LoadGroupResult>;
  /** Removes the group's keys and ends the connections. */
  close(): Promise<void>;
}

/** The merged outcomes of a load group, and each worker's own figures. */
export interface LoadGroupResult {
  outcomes: ClientOutcome[];
  dropped: number;
  workers: LoadWorkerSummary[];
}

/** Options of `openLoadGroup`. */
export interface LoadGroupOptions {
  redisUrl: string;
  job: LoadJob;
  /** How long to wait for all workers to join and be ready (ms). */
  joinTimeoutMs?: number;
  /** Lead time between the barrier and the first send, so every worker sees the start time first (ms). */
  leadMs?: number;
}

const blockSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** The longest any worker may still be sending after the start: the schedule, the last deadline, a margin. */
function finishWithinMs(job: LoadJob): number {
  return job.load.duration + job.load.requests.deadline * 2 + 30_000;
}

/**
 * Opens a load group on Redis: writes the job every worker reads, names it the newest group (for
 * `load-worker --join` without `--group`), and returns the coordinator's side of the barrier.
 */
export async function openLoadGroup(o: LoadGroupOptions): Promise<LoadGroup> {
  const id = randomUUID().slice(0, 8);
  const keys = loadGroupKeys(id);
  const redis = loadGroupRedis(o.redisUrl);
  const control = redis.duplicate();
  control.on('error', () => {});
  await redis.set(keys.job, JSON.stringify(o.job), 'EX', LOAD_GROUP_TTL_S);
  await redis.set(LATEST_LOAD_GROUP, id, 'EX', LOAD_GROUP_TTL_S);
  const segments = o.job.segments;
  const timeout = (what: string) =>
    new HarnessError(
      'HARNESS_LOAD_GROUP_TIMEOUT',
      `Failed to ${what} in time. Start the missing load workers (throttlelab load-worker --join <redis-url> --group ${id}) or check their output.`,
    );

  async function run(signal?: AbortSignal, onStarted?: (startAt: number) => void): Promise<LoadGroupResult> {
    const joinBy = Date.now() + (o.joinTimeoutMs ?? 60_000);
    for (let ready = 0; ready < segments; ready++) {
      const left = joinBy - Date.now();
      const got = left > 0 ? await redis.blpop(keys.ready, blockSeconds(left)) : null;
      if (!got) throw timeout(`have ${segments} load workers ready (${ready} were)`);
    }
    // An epoch time, so workers on other hosts start together as far as their clocks agree (NTP).
    const startAt = Date.now() + (o.leadMs ?? 250);
    const multi = redis.multi();
    for (let i = 0; i < segments; i++) multi.rpush(keys.go(i), String(startAt)).expire(keys.go(i), LOAD_GROUP_TTL_S);
    await multi.exec();
    onStarted?.(startAt);
    const stop = () => void control.set(keys.stop, '1', 'EX', LOAD_GROUP_TTL_S).catch(() => {});
    signal?.addEventListener('abort', stop, { once: true });
    try {
      const results: LoadWorkerResult[] = [];
      const doneBy = startAt + finishWithinMs(o.job);
      while (results.length < segments) {
        const left = doneBy - Date.now();
        const got = left > 0 ? await redis.blpop(keys.done, blockSeconds(left)) : null;
        if (!got) throw timeout(`hear back from ${segments - results.length} load workers`);
        results.push(JSON.parse(got[1]) as LoadWorkerResult);
      }
      return mergeLoadResults(results);
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  }

  return {
    id,
    run,
    async close() {
      const all = [
        keys.job,
        keys.claimed,
        keys.ready,
        keys.stop,
        keys.done,
        ...Array.from({ length: segments }, (_, i) => keys.go(i)),
      ];
      await redis.del(...all).catch(() => 0);
      if ((await redis.get(LATEST_LOAD_GROUP).catch(() => null)) === id)
        await redis.del(LATEST_LOAD_GROUP).catch(() => 0);
      redis.disconnect();
      control.disconnect();
    },
  };
}

/**
 * One load's outcomes from its workers' parts, in schedule order (as one worker would have
 * recorded them); a worker that failed fails the whole load, since its segment went unsent.
 */
export function mergeLoadResults(results: readonly LoadWorkerResult[]): LoadGroupResult {
  const failed = results.find((r) => r.error !== undefined);
  if (failed)
    throw new HarnessError(
      'HARNESS_LOAD_WORKER_FAILED',
      `Failed to send segment ${failed.segment + 1} (load worker ${failed.pid} on ${failed.host}): ${failed.error}`,
    );
  const outcomes = results
    .flatMap((r) => r.outcomes)
    .sort((a, b) => a.scheduledAt - b.scheduledAt || a.sentAt - b.sentAt);
  const workers = results.map(({ outcomes: _, ...summary }) => summary).sort((a, b) => a.segment - b.segment);
  return { outcomes, dropped: results.reduce((n, r) => n + r.dropped, 0), workers };
}
