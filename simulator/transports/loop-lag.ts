import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Event-loop delay seen while a monitor ran, in ms. */
export interface LoopLag {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  samples: number;
}

/** A running event-loop delay monitor. */
export interface LoopLagMonitor {
  /** The delay seen so far. */
  read(): LoopLag;
  /** Stops sampling and returns the delay seen. */
  stop(): LoopLag;
}

/**
 * Measures how late this process's event loop runs (node:perf_hooks `monitorEventLoopDelay`,
 * sampled every `resolutionMs`): the simulator timestamps arrivals and the load generator sends
 * on that loop, so its delay bounds how far their clocks can be trusted. The histogram counts a
 * sample's whole interval; the resolution is taken off so an idle loop reads about 0 ms.
 */
export function startLoopLagMonitor(resolutionMs = 10): LoopLagMonitor {
  const h = monitorEventLoopDelay({ resolution: resolutionMs });
  h.enable();
  const ms = (ns: number) => Math.max(0, ns / 1e6 - resolutionMs);
  const read = (): LoopLag =>
    h.count === 0
      ? { p50Ms: 0, p99Ms: 0, maxMs: 0, samples: 0 }
      : { p50Ms: ms(h.percentile(50)), p99Ms: ms(h.percentile(99)), maxMs: ms(h.max), samples: h.count };
  return {
    read,
    stop() {
      const lag = read();
      h.disable();
      return lag;
    },
  };
}
