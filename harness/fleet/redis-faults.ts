import type { PlacedRedisFault } from './fleet-spec.js';
import type { RedisServer } from './redis-server.js';

/** What became of one `redis` fault, for the report: when it began and ended, on the faults' clock. */
export interface RedisFaultRecord {
  id: string;
  mode: 'down' | 'restart' | 'pause';
  /** Planned start, ms from the faults' origin: the load's start (`RunData.loadStartedAt`), like every fault's `at`. */
  at: number;
  for?: number;
  /** When it really began and ended, on the same clock; absent if the run ended first. */
  began?: number;
  ended?: number;
  error?: string;
}

/**
 * Plays the `redis` faults on the run's Redis, `at` counted from `origin`. Faults run one
 * after another (a restart waits for a stop before it to finish), so they never fight over the
 * server. `stop()` cancels what has not begun.
 */
export function playRedisFaults(
  server: RedisServer,
  faults: readonly PlacedRedisFault[],
  origin: number,
  now: () => number,
): { records: RedisFaultRecord[]; stop(): Promise<void> } {
  const records: RedisFaultRecord[] = faults.map((f) => ({
    id: f.id,
    mode: f.mode,
    at: f.at,
    ...(f.for !== undefined ? { for: f.for } : {}),
  }));
  const timers: NodeJS.Timeout[] = [];
  let stopped = false;
  let chain: Promise<void> = Promise.resolve();
  const since = () => Math.round(now() - origin);
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopped) return resolve();
      timers.push(setTimeout(resolve, ms));
    });

  const play = async (f: PlacedRedisFault, r: RedisFaultRecord) => {
    if (stopped) return;
    r.began = since();
    if (f.mode === 'pause') {
      await server.pause(f.for!);
      await sleep(f.for!);
    } else {
      await server.stop({ keepData: f.mode === 'down' });
      await sleep(f.for ?? 0);
      if (stopped) return;
      await server.start();
    }
    r.ended = since();
  };

  faults.forEach((f, i) => {
    const r = records[i]!;
    timers.push(
      setTimeout(
        () => {
          chain = chain.then(() => play(f, r)).catch((e: unknown) => void (r.error = (e as Error).message));
        },
        Math.max(0, origin + f.at - now()),
      ),
    );
  });
  return {
    records,
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      await chain;
    },
  };
}
