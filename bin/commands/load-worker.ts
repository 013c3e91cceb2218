import { joinLoadGroup } from '../../harness/index.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';

/** Options of `throttlelab load-worker`. */
export interface LoadWorkerOptions {
  join: string;
  group?: string;
}

/** Takes one segment of a `run --load-workers` group's load, sends it, and hands the outcomes back. */
export async function loadWorker(o: LoadWorkerOptions, io: Io): Promise<ExitCode> {
  const r = await joinLoadGroup({ redisUrl: o.join, ...(o.group ? { group: o.group } : {}), note: io.err });
  io.out(
    `load worker: segment ${r.segment + 1} sent ${r.sent}${r.dropped ? ` (${r.dropped} not sent)` : ''}; loop lag p99 ${Math.round(r.loopLag.p99Ms)} ms, max ${Math.round(r.loopLag.maxMs)} ms`,
  );
  return EXIT.OK;
}
