import type { CircuitState } from './circuit.js';

/**
 * Where circuit states live. The memory store serves one process; a shared store lets replicas
 * see each other's open circuits and hold one probe lease cluster-wide. States carry absolute
 * times (epoch ms), never relative TTLs, so stores agree after restarts.
 */
export interface StateStore {
  get(key: string): CircuitState | undefined;
  /** Replaces the state only if it is still `expected` (by identity or deep equality); true on success. */
  compareAndSet(key: string, expected: CircuitState | undefined, next: CircuitState): boolean;
  /** Every key and state, for the state view. */
  entries(): Iterable<[string, CircuitState]>;
}
