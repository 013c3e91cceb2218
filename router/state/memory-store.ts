import type { CircuitState } from '../core/circuit.js';
import type { StateStore } from '../core/state-store.js';

function same(a: CircuitState | undefined, b: CircuitState | undefined): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** An in-process state store; compare-and-set is atomic because JavaScript runs one thing at a time. */
export function createMemoryStore(): StateStore {
  const states = new Map<string, CircuitState>();
  return {
    get: (key) => states.get(key),
    compareAndSet(key, expected, next) {
      if (!same(states.get(key), expected)) return false;
      states.set(key, next);
      return true;
    },
    entries: () => states.entries(),
  };
}
