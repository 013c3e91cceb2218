/** One thread's cumulative run-queue wait: the second field of `/proc/<pid>/task/<tid>/schedstat` (ns). */
export interface ThreadWait {
  tid: number;
  waitNs: number;
}

/** One process of the router's tree at a sample, with its threads. */
export interface ProcessWaits {
  pid: number;
  /**
   * A JavaScript runtime whose executable is `node`, `bun` or `deno`: only its main thread (the
   * event loop) serves requests.
   */
  node: boolean;
  /** The executable's name (`node`, `sh`, `docker`), so the report can say what was measured. */
  exe?: string;
  threads: ThreadWait[];
}

/** One reading of the router's process tree at an instant (epoch ms, the harness's clock). */
export interface SchedSample {
  at: number;
  processes: ProcessWaits[];
}

/** How starved the router was over the run, for the report. */
export interface RunQueueSummary {
  /** Run-queue delay over the whole run, ms (see `createRunQueueSeries` for which threads count). */
  totalMs: number;
  /** The most accrued in any `windowMs` of the run, ms. */
  worstWindowMs: number;
  windowMs: number;
  samples: number;
  /** The most processes seen in the router's tree, and threads counted, at one sample. */
  processes: number;
  threads: number;
  /**
   * The names of the executables whose threads were counted, sorted (at most 16): a router started
   * through a wrapper (`docker run`, a script) is measured as the wrapper, and this says so.
   */
  executables?: string[];
}

/** The router's figures for the report: a fleet's also each replica's, in replica order. */
export interface RouterRunQueueSummary extends RunQueueSummary {
  replicas?: RunQueueSummary[];
}

/** The router's run-queue delay as a timeline. */
export interface RunQueueDelay {
  /** ms the router waited for a CPU between two instants (epoch ms), never more than `to - from`. */
  delayMs(from: number, to: number): number;
  /** The instants strictly between `from` and `to` at which it was sampled (between two, the delay is spread evenly). */
  sampledAt(from: number, to: number): number[];
  summary(windowMs?: number): RunQueueSummary;
}

/** How many samples a thread may go unread (its file read failed) before its last wait is forgotten. */
const UNSEEN_SAMPLES = 8;
/** How many executables' names the summary keeps. */
const MAX_EXECUTABLES = 16;

/**
 * The threads whose waits can delay a request. A Node.js (or Bun, or Deno) router serves every
 * request on its main thread (the event loop; its id is the process's): the engine's helper threads
 * wait in the run queue too, but a request does not wait for them, so counting them would excuse
 * more than the machine cost. When the main thread was not read in a sample, nothing counts for that
 * process: its helpers stand for nothing a request waited on. For any other process every thread
 * may be the one holding a request.
 */
export function countedThreads(p: ProcessWaits): ThreadWait[] {
  return p.node ? p.threads.filter((t) => t.tid === p.pid) : p.threads;
}

/**
 * Turns periodic readings of the router's threads into the run-queue delay accrued between any two
 * instants.
 *
 * Which sum: each interval between two samples counts the largest wait any one counted thread
 * accrued in it (capped at the interval's length), not the sum over threads. A request is held by
 * one thread at a time; threads waiting side by side (four idle-but-runnable workers, each 100 ms)
 * delay it by 100 ms, not 400, so a sum would excuse lateness the machine did not cause. The
 * largest is at least what the thread holding the request waited (for a Node router, its main
 * thread alone is counted: exactly that), and at most a thread's worth per interval. A request
 * handed from thread to thread within one interval could have waited for both: the maximum
 * under-counts it, erring toward a FAIL rather than excusing a router.
 *
 * A thread missing from one sample (its file could not be read) keeps its last reading for up to
 * `UNSEEN_SAMPLES` samples, so when it is read again only what it accrued since counts, not its
 * whole life's wait; a thread seen for the first time brings all its wait since it began (capped
 * at the interval, as everything is).
 *
 * Between samples the delay is spread evenly (the cumulative figure interpolated linearly): a span
 * that covers part of an interval gets that part of it. Memory is bounded: past `maxPoints`
 * every other point is dropped, which coarsens the timeline but keeps every total exact.
 */
export function createRunQueueSeries(maxPoints = 100_000): {
  add(sample: SchedSample): void;
  delay(): RunQueueDelay;
} {
  let times: number[] = [];
  let cumulative: number[] = [];
  /** tid → its last wait (ns) and the sample it was read in. */
  const previous = new Map<number, { waitNs: number; sample: number }>();
  const executables = new Set<string>();
  let samples = 0;
  let processes = 0;
  let threads = 0;
  const at = (t: number): number => {
    const n = times.length;
    if (n === 0) return 0;
    if (t <= times[0]!) return cumulative[0]!;
    if (t >= times[n - 1]!) return cumulative[n - 1]!;
    let lo = 0;
    let hi = n - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if (times[mid]! <= t) lo = mid;
      else hi = mid;
    }
    const t0 = times[lo]!;
    const c0 = cumulative[lo]!;
    return c0 + ((cumulative[hi]! - c0) * (t - t0)) / (times[hi]! - t0);
  };
  return {
    add(sample) {
      const last = times.length - 1;
      if (last >= 0 && !(sample.at > times[last]!)) return;
      let worstNs = 0;
      let counted = 0;
      for (const p of sample.processes) {
        const threads = countedThreads(p);
        if (threads.length > 0 && p.exe !== undefined && executables.size < MAX_EXECUTABLES) executables.add(p.exe);
        for (const t of threads) {
          counted++;
          const before = previous.get(t.tid)?.waitNs;
          // A thread not seen before (or whose id was reused) accrued all its wait since it began.
          const accrued = before === undefined || t.waitNs < before ? t.waitNs : t.waitNs - before;
          worstNs = Math.max(worstNs, accrued);
          previous.set(t.tid, { waitNs: t.waitNs, sample: samples });
        }
      }
      for (const [tid, p] of previous) if (samples - p.sample >= UNSEEN_SAMPLES) previous.delete(tid);
      samples++;
      processes = Math.max(processes, sample.processes.length);
      threads = Math.max(threads, counted);
      if (last < 0) {
        times.push(sample.at);
        cumulative.push(0);
        return;
      }
      const span = sample.at - times[last]!;
      times.push(sample.at);
      cumulative.push(cumulative[last]! + Math.min(span, worstNs / 1e6));
      if (times.length > maxPoints) {
        times = times.filter((_, i) => i % 2 === 0 || i === times.length - 1);
        cumulative = cumulative.filter((_, i) => i % 2 === 0 || i === cumulative.length - 1);
      }
    },
    delay() {
      return {
        delayMs: (from, to) => (to > from ? at(to) - at(from) : 0),
        sampledAt(from, to) {
          const out: number[] = [];
          let lo = 0;
          let hi = times.length;
          while (lo < hi) {
            const mid = (lo + hi) >>> 1;
            if (times[mid]! <= from) lo = mid + 1;
            else hi = mid;
          }
          for (let i = lo; i < times.length && times[i]! < to; i++) out.push(times[i]!);
          return out;
        },
        summary(windowMs = 1000) {
          const n = times.length;
          // The accrual is piecewise linear: the busiest window starts or ends at a sample.
          let worst = 0;
          for (let i = 0; i < n; i++) {
            const t = times[i]!;
            worst = Math.max(worst, at(t + windowMs) - at(t), at(t) - at(t - windowMs));
          }
          return {
            totalMs: n === 0 ? 0 : cumulative[n - 1]!,
            worstWindowMs: worst,
            windowMs,
            samples,
            processes,
            threads,
            executables: [...executables].sort(),
          };
        },
      };
    },
  };
}
