import type { LimitSpec, Meter } from './meter.js';

/** Token-bucket state: the level at time `at`. */
export interface TokenBucketState {
  level: number;
  at: number;
}

function refill(state: TokenBucketState, spec: LimitSpec, now: number): void {
  if (now > state.at) {
    state.level = Math.min(spec.limit, state.level + ((now - state.at) * spec.limit) / spec.windowMs);
    state.at = now;
  }
}

/**
 * Continuous refill at `limit / windowMs`, capped at `limit`: how OpenAI and Anthropic describe
 * their limits ("replenished continuously up to the maximum").
 * @see https://docs.anthropic.com/en/api/rate-limits
 */
export const tokenBucket: Meter<TokenBucketState> = {
  create: (spec, now) => ({ level: spec.limit, at: now }),
  available(state, spec, now) {
    refill(state, spec, now);
    return state.level;
  },
  waitMs(state, spec, cost, now) {
    if (cost > spec.limit) return Infinity;
    refill(state, spec, now);
    return state.level >= cost ? 0 : ((cost - state.level) * spec.windowMs) / spec.limit;
  },
  resetInMs(state, spec, now) {
    refill(state, spec, now);
    return ((spec.limit - state.level) * spec.windowMs) / spec.limit;
  },
  consume(state, spec, cost, now) {
    refill(state, spec, now);
    state.level -= cost;
  },
};
