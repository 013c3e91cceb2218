import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename } from 'node:path';
import type { ProcessWaits, ThreadWait } from './run-queue-delay.js';

/** Bounds on one reading, so a router that forks without end cannot make the sampler slow. */
const MAX_PROCESSES = 64;
const MAX_THREADS = 2048;

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

/** The parent pid in `/proc/<pid>/stat` (after the command name, which may hold spaces and parentheses). */
function parentOf(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/**
 * Reads the run-queue wait of every thread of the processes `roots` and all their descendants
 * (the `sh -c` the launcher starts, and whatever it starts in turn). Synchronous on purpose: a few
 * small files under /proc, read in well under a millisecond, stamped together. A process that
 * exits meanwhile is left out. Children come from `/proc/<pid>/task/<tid>/children`; where the
 * kernel lacks it, from the parent pid of every process.
 */
export function createSchedTreeReader(proc = '/proc'): (roots: readonly number[]) => ProcessWaits[] {
  const isNode = new Map<number, boolean>();
  const nodeProcess = (pid: number) => {
    let known = isNode.get(pid);
    if (known === undefined) {
      let exe = '';
      try {
        exe = basename(readlinkSync(`${proc}/${pid}/exe`));
      } catch {
        exe = (readText(`${proc}/${pid}/comm`) ?? '').trim();
      }
      known = exe === 'node' || exe === 'nodejs';
      isNode.set(pid, known);
    }
    return known;
  };
  return (roots) => {
    const out: ProcessWaits[] = [];
    const seen = new Set<number>();
    const queue = [...roots].filter((p) => p > 0);
    let threadCount = 0;
    let byParent: Map<number, number[]> | undefined;
    const childrenByScan = (pid: number) => {
      if (!byParent) {
        byParent = new Map();
        for (const name of list(proc)) {
          if (!/^\d+$/.test(name)) continue;
          const stat = readText(`${proc}/${name}/stat`);
          if (stat === undefined) continue;
          const parent = parentOf(stat);
          byParent.set(parent, [...(byParent.get(parent) ?? []), Number(name)]);
        }
      }
      return byParent.get(pid) ?? [];
    };
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
      if (threads.length > 0) out.push({ pid, node: nodeProcess(pid), threads });
    }
    return out;
  };
}
