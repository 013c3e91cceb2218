import type { LimitSpec, Meter } from './meter.js';

/** Fixed-window state: units used in the window that started at `start`. */
export interface FixedWindowState {
  start: number;
  end: number;
  used: number;
}

function roll(state: FixedWindowState, spec: LimitSpec, now: number): void {
  if (now >= state.end || now < state.start) {
    state.start = spec.windowStart ? spec.windowStart(now) : Math.floor(now / spec.windowMs) * spec.windowMs;
    state.end = state.start + spec.windowMs;
    state.used = 0;
  }
}

/**
 * Counts units per aligned window and forgets them all at the boundary: how Gemini's minute
 * limits ("reset every minute at second 00") and daily limits (midnight Pacific) behave.
 * @see https://ai.google.dev/gemini-api/docs/rate-limits
 */
export const fixedWindow: Meter<FixedWindowState> = {
  create(spec, now) {
    const state = { start: 0, end: 0, used: 0 };
    roll(state, spec, now);
    return state;
  },
  available(state, spec, now) {
    roll(state, spec, now);
    return spec.limit - state.used;
  },
  waitMs(state, spec, cost, now) {
    if (cost > spec.limit) return Infinity;
    roll(state, spec, now);
    return state.used + cost <= spec.limit ? 0 : state.end - now;
  },
  resetInMs(state, spec, now) {
    roll(state, spec, now);
    return state.used > 0 ? state.end - now : 0;
  },
  consume(state, spec, cost, now) {
    roll(state, spec, now);
    state.used += cost;
  },
};
