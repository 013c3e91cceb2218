import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename } from 'node:path';
import { systemClock } from '../../simulator/index.js';
import type { ProcessWaits, ThreadWait } from './run-queue-delay.js';

/** Bounds on one reading, so a router that forks without end cannot make the sampler slow. */
const MAX_PROCESSES = 64;
const MAX_THREADS = 2048;
/** Executables that serve every request on their main thread (see `countedThreads`). */
const EVENT_LOOP_RUNTIMES = new Set(['node', 'nodejs', 'bun', 'deno']);

/**
 * Why the run-queue delay of a router cannot be read here, or undefined when it can: Linux exposes
 * each thread's wait in `/proc/<pid>/task/<tid>/schedstat` (with CONFIG_SCHED_INFO, as every common
 * distribution builds it); other systems have no such file.
 */
export function schedstatUnavailable(proc = '/proc'): string | undefined {
  return existsSync(`${proc}/self/schedstat`)
    ? undefined
    : `${proc}/<pid>/schedstat is not available on this system (Linux only)`;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function list(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** The fields of `/proc/<pid>/stat` from the third (the state) on: the command name before may hold spaces and parentheses. */
function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The parent pid in `/proc/<pid>/stat`. */
function parentOf(stat: string): number {
  return Number(statFields(stat)[1]);
}

/** Options for `createSchedTreeReader`; tests pass a fake clock. */
export interface SchedTreeReaderOptions {
  now?: () => number;
  /** How often at most the whole of /proc is scanned for parent pids, where the kernel has no children files. */
  scanEveryMs?: number;
}

/**
 * Reads the run-queue wait of every thread of the processes `roots` and all their descendants
 * (the `sh -c` the launcher starts, and whatever it starts in turn). Synchronous on purpose: a few
 * small files under /proc, read in well under a millisecond, stamped together. A process that
 * exits meanwhile is left out. Children come from `/proc/<pid>/task/<tid>/children`; where the
 * kernel lacks it, from the parent pid of every process, scanned at most every `scanEveryMs` (1 s;
 * in between the last scan's tree is reused, so a child started since is read up to a second late,
 * and the sampler does not read all of /proc every 50 ms on the harness's loop).
 *
 * Each process's executable is known by its pid and start time (field 22 of its stat), so a pid
 * the system reuses after the router died is looked at afresh.
 */
export function createSchedTreeReader(
  proc = '/proc',
  o: SchedTreeReaderOptions = {},
): (roots: readonly number[]) => ProcessWaits[] {
  const now = o.now ?? systemClock.now;
  const scanEveryMs = o.scanEveryMs ?? 1000;
  const executables = new Map<string, string>();
  const executableOf = (pid: number): string => {
    const stat = readText(`${proc}/${pid}/stat`);
    const key = stat === undefined ? undefined : `${pid}@${statFields(stat)[19]}`;
    let exe = key === undefined ? undefined : executables.get(key);
    if (exe === undefined) {
      try {
        exe = basename(readlinkSync(`${proc}/${pid}/exe`));
      } catch {
        exe = (readText(`${proc}/${pid}/comm`) ?? '').trim();
      }
      if (executables.size >= 4 * MAX_PROCESSES) executables.clear();
      if (key !== undefined) executables.set(key, exe);
    }
    return exe;
  };
  let byParent: Map<number, number[]> | undefined;
  let scannedAt = -Infinity;
  const childrenByScan = (pid: number) => {
    if (!byParent || now() - scannedAt >= scanEveryMs) {
      scannedAt = now();
      byParent = new Map();
      for (const name of list(proc)) {
        if (!/^\d+$/.test(name)) continue;
        const stat = readText(`${proc}/${name}/stat`);
        if (stat === undefined) continue;
        const parent = parentOf(stat);
        const siblings = byParent.get(parent);
        if (siblings) siblings.push(Number(name));
        else byParent.set(parent, [Number(name)]);
      }
    }
    return byParent.get(pid) ?? [];
  };
  return (roots) => {
    const out: ProcessWaits[] = [];
    const seen = new Set<number>();
    const queue = [...roots].filter((p) => p > 0);
    let threadCount = 0;
    while (queue.length > 0 && out.length < MAX_PROCESSES) {
      const pid = queue.shift()!;
      if (seen.has(pid)) continue;
      seen.add(pid);
      const threads: ThreadWait[] = [];
      for (const name of list(`${proc}/${pid}/task`)) {
        if (threadCount >= MAX_THREADS) break;
        const stat = readText(`${proc}/${pid}/task/${name}/schedstat`);
        const waitNs = stat === undefined ? NaN : Number(stat.split(' ')[1]);
        if (Number.isFinite(waitNs) && waitNs >= 0) {
          threads.push({ tid: Number(name), waitNs });
          threadCount++;
        }
        const children = readText(`${proc}/${pid}/task/${name}/children`);
        if (children !== undefined) queue.push(...children.split(' ').filter(Boolean).map(Number));
        else if (stat !== undefined && Number(name) === pid) queue.push(...childrenByScan(pid));
      }
      if (threads.length > 0) {
        const exe = executableOf(pid);
        out.push({ pid, node: EVENT_LOOP_RUNTIMES.has(exe), exe, threads });
      }
    }
    return out;
  };
}
