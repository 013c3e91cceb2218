import type { StateStore } from './state-store.js';
import {
  admit,
  availableAt,
  CLOSED,
  openCircuit,
  recordFailure,
  recordSuccess,
  type CircuitOptions,
  type CircuitState,
} from './circuit.js';
import type { CircuitOp } from './circuit-policy.js';
import type { Rng } from './rng.js';

/** A probe lease a request holds while it tests a circuit. */
export interface ProbeLease {
  key: string;
}

/**
 * The circuits of all scopes (`provider:<id>` for overload and failures, `key:<provider>/<key>`
 * for quota walls and rejected keys, `limit:<provider>/<key>/<model>` for rate limits; see
 * `decideCircuits`), kept in a StateStore so that probe leases are exclusive.
 */
export class CircuitBook {
  /** `onChange` runs after any circuit changes state (not when a probe takes its lease). */
  constructor(
    private readonly store: StateStore,
    private readonly options: CircuitOptions,
    private readonly rng: Rng,
    private readonly onChange: () => void = () => {},
  ) {}

  get(key: string): CircuitState {
    return this.store.get(key) ?? CLOSED;
  }

  /** When `key` could admit a request (now if closed). */
  availableAt(key: string, now: number): number {
    return availableAt(this.get(key), now);
  }

  /**
   * When a request waiting for `key` should look again: the end of an open window, or now for a
   * half-open circuit (its probe's answer wakes waiters through `onChange`).
   */
  waitableAt(key: string, now: number): number {
    const s = this.get(key);
    return s.state === 'open' ? Math.max(now, s.until) : now;
  }

  /** Whether a request could pass `key` now (without taking a lease). */
  isPassable(key: string, now: number): boolean {
    const s = this.get(key);
    return (
      s.state === 'closed' || (s.state === 'open' && now >= s.until) || (s.state === 'half-open' && now >= s.leaseUntil)
    );
  }

  /** Admits a request through `key`, taking the probe lease when the circuit is half-open; undefined if refused. */
  pass(key: string, now: number): { probe: boolean } | undefined {
    const current = this.store.get(key);
    const decision = admit(current ?? CLOSED, now, this.options);
    if (!decision.allowed) return undefined;
    if (!decision.probe) return { probe: false };
    return this.store.compareAndSet(key, current, decision.next) ? { probe: true } : undefined;
  }

  private update(key: string, f: (s: CircuitState) => CircuitState): void {
    for (let i = 0; i < 8; i++) {
      const current = this.store.get(key);
      const next = f(current ?? CLOSED);
      if (next === (current ?? CLOSED)) return;
      if (this.store.compareAndSet(key, current, next)) {
        this.onChange();
        return;
      }
    }
  }

  /** Opens `key` until `until` (extending, never shortening). */
  open(key: string, until: number, now: number, reason: string): void {
    this.update(key, (s) => openCircuit(s, until, now, reason, this.options, this.rng));
  }

  /** Records a hint-less failure; `probe` when the attempt held `key`'s probe lease. */
  failure(key: string, now: number, reason: string, probe = false): void {
    this.update(key, (s) => recordFailure(s, now, reason, this.options, this.rng, probe));
  }

  /** Records a success; only the probe closes an open or half-open circuit. */
  success(key: string, probe = false): void {
    this.update(key, (s) => recordSuccess(s, probe));
  }

  /** Gives back a half-open probe lease untested, so that the next request may probe at once. */
  release(key: string, now: number): void {
    const s = this.get(key);
    if (s.state === 'half-open') this.open(key, now, now, s.reason);
  }

  /** Applies the operations `decideCircuits` returned, in order. */
  apply(ops: readonly CircuitOp[], now: number): void {
    for (const op of ops) {
      if (op.op === 'success') this.success(op.scope, op.probe);
      else if (op.op === 'failure') this.failure(op.scope, now, op.reason, op.probe);
      else if (op.op === 'open') this.open(op.scope, op.until, now, op.reason);
      else this.release(op.scope, now);
    }
  }

  entries(): Iterable<[string, CircuitState]> {
    return this.store.entries();
  }
}
