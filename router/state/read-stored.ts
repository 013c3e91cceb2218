import type { CircuitState } from '../core/circuit.js';
import { boundCircuit, DEFAULT_FLEET_BOUNDS, type FleetBounds } from './fleet-bounds.js';

/**
 * Reads a stored circuit value: `<seq>|<state as JSON>`, the state validated and clamped to
 * `bounds` as of `now` (fleet-bounds.ts). Anything else reads as no state, `invalid` ('' is no
 * record, not an invalid one).
 */
export function readStored(
  value: string,
  now: number,
  bounds: FleetBounds = DEFAULT_FLEET_BOUNDS,
): { seq: number; state: CircuitState | undefined; invalid?: true } {
  if (value === '') return { seq: 0, state: undefined };
  const bar = value.indexOf('|');
  const seq = Number(value.slice(0, bar));
  if (bar < 0 || !Number.isSafeInteger(seq) || seq < 0) return { seq: 0, state: undefined, invalid: true };
  let raw: unknown;
  try {
    raw = JSON.parse(value.slice(bar + 1));
  } catch {
    return { seq, state: undefined, invalid: true };
  }
  const state = boundCircuit(raw, now, bounds);
  return state ? { seq, state } : { seq, state: undefined, invalid: true };
}
