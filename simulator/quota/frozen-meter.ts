import type { Meter } from './meter.js';

/** A bucket's figures as the shared engine answered them for one decision. */
export interface FrozenState {
  available: number;
  resetInMs: number;
  /** How long the same request would wait again, once admitted. */
  waitMs: number;
}

/**
 * A meter that reads back what the shared engine decided: the buckets a worker holds after a
 * decision are snapshots, so headers and the ledger describe the limits as Redis left them.
 */
export const frozenMeter: Meter<FrozenState> = {
  create: () => ({ available: 0, resetInMs: 0, waitMs: 0 }),
  available: (state) => state.available,
  waitMs: (state) => state.waitMs,
  resetInMs: (state) => state.resetInMs,
  consume() {},
};
