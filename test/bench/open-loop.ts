// The benchmarks' open-loop load: requests scheduled at a constant rate, latency timed from each
// request's scheduled send time (wrk2's method), so a stall cannot hide behind fewer requests.
import { Pool } from 'undici';

/** Where a benchmark sends its requests. */
export interface Target {
  name: string;
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** One open-loop run's figures, in milliseconds. */
export interface OpenLoopResult {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  errors: number;
  achieved: number;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Sends `rate` requests a second for `seconds` to `t`. */
export async function openLoop(t: Target, rate: number, seconds: number): Promise<OpenLoopResult> {
  const pool = new Pool(t.origin, { connections: 256, pipelining: 1 });
  const total = rate * seconds;
  const interval = 1000 / rate;
  const latencies: number[] = [];
  let errors = 0;
  const t0 = performance.now() + 50;
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const scheduled = t0 + i * interval;
    const delay = scheduled - performance.now();
    if (delay > 1) await new Promise((r) => setTimeout(r, delay));
    // Late sends are timed from their schedule (coordinated omission counts); a send the timer
    // let go up to 1 ms early is timed from when it really left.
    const from = Math.min(scheduled, performance.now());
    inflight.push(
      pool
        .request({ path: t.path, method: 'POST', headers: t.headers, body: t.body })
        .then(async (res) => {
          await res.body.text();
          if (res.statusCode !== 200) errors++;
          latencies.push(performance.now() - from);
        })
        .catch(() => {
          errors++;
        }),
    );
  }
  await Promise.all(inflight);
  const elapsed = (performance.now() - t0) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    p50: pct(latencies, 50),
    p90: pct(latencies, 90),
    p99: pct(latencies, 99),
    max: latencies.at(-1)!,
    errors,
    achieved: total / elapsed,
  };
}

/** The median of some numbers. */
export const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
