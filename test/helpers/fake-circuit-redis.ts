import { openCircuit, recordFailure, type CircuitOptions, type CircuitState } from '../../router/core/circuit.js';
import type { CircuitBackend } from '../../router/state/circuit-backend.js';
import { SharedCircuits } from '../../router/state/shared-circuits.js';

/** Breaker options of the shared-circuits tests. */
export const o: CircuitOptions = {
  failureThreshold: 3,
  openMs: 1000,
  maxOpenMs: 60_000,
  maxBackoffMs: 8000,
  jitterRatio: 0,
  probeLeaseMs: 5000,
};
const rng = { next: () => 0 };
/** Opens a circuit until `until`. */
export const open = (until: number) => (s: CircuitState) => openCircuit(s, until, 0, 'rate limited', o, rng);
/** Counts a failure. */
export const fail = (s: CircuitState) => recordFailure(s, 0, 'server error', o, rng);

/** Redis as the shared cache sees it: compare-and-set, numbered writes, and a channel to every replica. */
export function fakeCircuitRedis() {
  const values = new Map<string, string>();
  const replicas: SharedCircuits[] = [];
  let seq = 0;
  let down = false;
  /** Writes and messages still on their way: `settle` waits for none. */
  let inflight = 0;
  const backend: CircuitBackend = {
    async cas(scope, expected, state) {
      inflight++;
      try {
        await new Promise((r) => setTimeout(r, 1));
        if (down) throw new Error('connect ECONNREFUSED');
        const current = values.get(scope) ?? '';
        if (current !== expected) return { ok: false, value: current };
        const value = `${++seq}|${state}`;
        values.set(scope, value);
        inflight++;
        setTimeout(() => {
          inflight--;
          replicas.forEach((r) => r.onMessage(scope, value));
        }, 1);
        return { ok: true, value };
      } finally {
        inflight--;
      }
    },
    async read(scopes) {
      inflight++;
      try {
        await new Promise((r) => setTimeout(r, 1));
        if (down) throw new Error('connect ECONNREFUSED');
        return scopes.map((scope) => values.get(scope) ?? '');
      } finally {
        inflight--;
      }
    },
  };
  return {
    values,
    get inflight() {
      return inflight;
    },
    set down(v: boolean) {
      down = v;
    },
    replica(now = () => 0, name?: string) {
      const events = { changed: [] as string[], failures: [] as unknown[] };
      const r = new SharedCircuits(
        backend,
        now,
        (scope) => events.changed.push(scope),
        (e) => {
          events.failures.push(e);
          r.leave();
        },
        name,
      );
      r.rejoin(new Map(values));
      replicas.push(r);
      return Object.assign(r, { events });
    },
  };
}

/**
 * Until every write and message of the fake Redis has landed (and what they set off), however
 * slow the machine: a fixed sleep lost the race to a chain of 1 ms hops on a loaded one.
 */
export async function settle(redis: { readonly inflight: number }): Promise<void> {
  for (let i = 0; i < 400; i++) {
    await new Promise((r) => setTimeout(r, 5));
    if (redis.inflight === 0) return;
  }
  throw new Error('the fake Redis did not settle in 2 s');
}
