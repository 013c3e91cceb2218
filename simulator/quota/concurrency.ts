import type { Meter } from './meter.js';

/** Requests in flight; released when each response ends. */
export interface ConcurrencyState {
  inFlight: number;
}

/** A concurrency cap (DeepSeek's per-account limit): no window, a slot per request until it ends. */
export const concurrency: Meter<ConcurrencyState> = {
  create: () => ({ inFlight: 0 }),
  available: (state, spec) => spec.limit - state.inFlight,
  // When a slot frees depends on other requests finishing, so the wait is unknown.
  waitMs: (state, spec, cost) => (cost > spec.limit ? Infinity : state.inFlight + cost <= spec.limit ? 0 : Number.NaN),
  resetInMs: () => 0,
  consume(state, _spec, cost) {
    state.inFlight = Math.max(0, state.inFlight + cost);
  },
};
