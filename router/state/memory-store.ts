import { CLOSED } from '../core/circuit.js';
import type { CircuitState } from '../core/circuit.js';
import type { StateStore } from '../core/state-store.js';

/**
 * An in-process state store: one replica, nothing shared. Updates and leases are atomic because
 * JavaScript runs one thing at a time, and decided at once.
 */
export function createMemoryStore(replica = 'local'): StateStore {
  const states = new Map<string, CircuitState>();
  return {
    replica,
    get: (scope) => states.get(scope),
    entries: () => states.entries(),
    update(scope, f) {
      const current = states.get(scope) ?? CLOSED;
      const next = f(current);
      if (next !== current) states.set(scope, next);
    },
    lease(scope, f) {
      const next = f(states.get(scope) ?? CLOSED);
      if (next === undefined) return false;
      states.set(scope, next);
      return true;
    },
    onRemoteChange: () => {},
    link: () => {},
    health: () => ({ kind: 'memory', shared: false, fallbacks: 0, rejoins: 0, errors: 0, pendingWrites: 0, peers: 0 }),
    close: async () => {},
  };
}
