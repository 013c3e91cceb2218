import { systemClock } from './system-clock.js';

/** When this process's event loop ran behind: the spans a timer due at `from` fired late, until `to` (epoch ms). */
export interface LoopStalls {
  /** ms the loop was behind schedule between two instants (epoch ms, the harness's clock): the overlap of its stalls with them. */
  behindMs(from: number, to: number): number;
}

/** A running stall recorder. */
export interface LoopStallRecorder {
  /** Stops recording; the stalls seen stay readable. */
  stop(): LoopStalls;
}

/**
 * Records when this process's event loop fell behind, as a timeline: a timer re-armed every
 * `resolutionMs` notes each time it fired later than due (by more than `minMs`: timer jitter is
 * not a stall), from when it was due to when it ran. Everything on this loop (the simulator stamping arrivals, the load
 * generator sending and reading, and a router run in process) waited at least that long, so the
 * stalls inside one request's life bound how much of its latency the process, not the code under
 * test, could have caused. Percentiles cannot say that: a request that crosses the loop several
 * times is delayed by several stalls, each below the longest.
 */
export function recordLoopStalls(resolutionMs = 10, minMs = 5): LoopStallRecorder {
  const starts: number[] = [];
  const ends: number[] = [];
  let due = systemClock.now() + resolutionMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = () => {
    const now = systemClock.now();
    if (now - due > minMs) {
      starts.push(due);
      ends.push(now);
    }
    due = now + resolutionMs;
    timer = setTimeout(tick, resolutionMs);
    timer.unref();
  };
  timer = setTimeout(tick, resolutionMs);
  timer.unref();
  const stalls: LoopStalls = {
    behindMs(from, to) {
      if (!(to > from)) return 0;
      // The first stall ending after `from` (ends are ascending: each starts after the previous ended).
      let lo = 0;
      let hi = ends.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (ends[mid]! <= from) lo = mid + 1;
        else hi = mid;
      }
      let sum = 0;
      for (let i = lo; i < starts.length && starts[i]! < to; i++)
        sum += Math.min(ends[i]!, to) - Math.max(starts[i]!, from);
      return sum;
    },
  };
  return {
    stop() {
      clearTimeout(timer);
      return stalls;
    },
  };
}
