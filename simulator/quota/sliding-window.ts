import type { LimitSpec, Meter } from './meter.js';

/** Sliding-window log: one entry per charge, oldest first, from `head`. */
export interface SlidingWindowState {
  times: number[];
  costs: number[];
  head: number;
  used: number;
}

function evict(state: SlidingWindowState, spec: LimitSpec, now: number): void {
  const horizon = now - spec.windowMs;
  while (state.head < state.times.length && state.times[state.head]! <= horizon) {
    state.used -= state.costs[state.head]!;
    state.head++;
  }
  // Compact once the dead prefix dominates, so the log stays proportional to the window's traffic.
  if (state.head > 1024 && state.head * 2 > state.times.length) {
    state.times = state.times.slice(state.head);
    state.costs = state.costs.slice(state.head);
    state.head = 0;
  }
}

/** An exact sliding-window log: a unit charged at t counts until t + window. */
export const slidingWindow: Meter<SlidingWindowState> = {
  create: () => ({ times: [], costs: [], head: 0, used: 0 }),
  available(state, spec, now) {
    evict(state, spec, now);
    return spec.limit - state.used;
  },
  waitMs(state, spec, cost, now) {
    if (cost > spec.limit) return Infinity;
    evict(state, spec, now);
    let used = state.used;
    if (used + cost <= spec.limit) return 0;
    for (let i = state.head; i < state.times.length; i++) {
      used -= state.costs[i]!;
      if (used + cost <= spec.limit) return state.times[i]! + spec.windowMs - now;
    }
    return spec.windowMs;
  },
  resetInMs(state, spec, now) {
    evict(state, spec, now);
    const last = state.times.length - 1;
    return last >= state.head ? state.times[last]! + spec.windowMs - now : 0;
  },
  consume(state, spec, cost, now) {
    evict(state, spec, now);
    state.times.push(now);
    state.costs.push(cost);
    state.used += cost;
  },
};
