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

/**
 * How long a won lease waits for a request of this replica to use it before any replica may take
 * it again: a replica that won it but has no traffic for the target must not block the fleet for
 * a whole probe lease.
 */
const CLAIM_MS = 1000;

const NO_PROBE: { readonly probe: false } = Object.freeze({ probe: false });

/**
 * The circuits of all scopes (`provider:<id>` for overload and failures, `key:<provider>/<key>`
 * for quota walls and rejected keys, `limit:<provider>/<key>/<model>` for rate limits; see
 * `decideCircuits`), kept in a StateStore so that probe leases are exclusive across the fleet.
 *
 * When a window ends, the first request that wants the scope asks the store for its lease. A
 * store that decides at once (memory, or Redis while unreachable) lets that request probe; a shared
 * store answers later, so the request fails over (or waits, woken when the answer comes) and
 * the lease, if this replica won it, goes to the next request that wants the scope. No request
 * waits on the store.
 */
export class CircuitBook {
  /** Scopes whose lease this replica is asking the fleet for. */
  private readonly claiming = new Set<string>();
  /** Leases won and not yet taken by a request, by scope. */
  private readonly won = new Map<string, string>();
  /** Leases a request of this replica is probing with, by scope. */
  private readonly held = new Map<string, string>();
  private leases = 0;

  /** `onChange` runs after any circuit changes state here or on another replica, and when a lease is won. */
  constructor(
    private readonly store: StateStore,
    private readonly options: CircuitOptions,
    private readonly rng: Rng,
    private readonly onChange: () => void = () => {},
  ) {
    store.onRemoteChange(() => onChange());
  }

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
    if (this.claiming.has(key)) return false;
    const s = this.get(key);
    if (s.state === 'half-open' && s.lease !== undefined && this.won.get(key) === s.lease) return true;
    return (
      s.state === 'closed' || (s.state === 'open' && now >= s.until) || (s.state === 'half-open' && now >= s.leaseUntil)
    );
  }

  /**
   * Admits a request through `key`; `probe` when it takes the lease of a circuit whose window
   * ended. Undefined when refused, or while the fleet decides who probes.
   */
  pass(key: string, now: number): { readonly probe: boolean } | undefined {
    const s = this.get(key);
    const won = this.won.get(key);
    if (won !== undefined) {
      this.won.delete(key);
      if (s.state === 'half-open' && s.lease === won) return this.take(key, won, now);
    }
    if (this.claiming.has(key)) return undefined;
    // A closed circuit admits without a probe (as `admit` rules): one shared answer, nothing built per request.
    if (s.state === 'closed') return NO_PROBE;
    const decision = admit(s, now, this.options);
    if (!decision.allowed) return undefined;
    if (!decision.probe) return { probe: false };
    const lease = `${this.store.replica}#${++this.leases}`;
    const claimUntil = now + Math.min(CLAIM_MS, this.options.probeLeaseMs);
    const result = this.store.lease(key, (current) => {
      const d = admit(current, now, this.options);
      return d.allowed && d.probe && d.next.state === 'half-open'
        ? { ...d.next, leaseUntil: claimUntil, lease }
        : undefined;
    });
    if (result === true) return this.take(key, lease, now);
    if (result === false) return undefined;
    this.claiming.add(key);
    result.then(
      (ok) => {
        this.claiming.delete(key);
        if (ok) this.won.set(key, lease);
        this.onChange();
      },
      () => {
        this.claiming.delete(key);
        this.onChange();
      },
    );
    return undefined;
  }

  /** A request takes a won lease: it holds it for as long as an attempt may take. */
  private take(key: string, lease: string, now: number): { probe: true } {
    this.held.set(key, lease);
    const until = now + this.options.probeLeaseMs;
    this.store.update(key, (s) =>
      s.state === 'half-open' && s.lease === lease && s.leaseUntil < until ? { ...s, leaseUntil: until } : s,
    );
    return { probe: true };
  }

  /** Whether an attempt that took `key`'s lease still holds it (another may have taken it after it expired). */
  private owns(s: CircuitState, lease: string | undefined): boolean {
    return s.state !== 'half-open' || s.lease === undefined || s.lease === lease;
  }

  private update(key: string, f: (s: CircuitState) => CircuitState): void {
    const before = this.store.get(key);
    this.store.update(key, f);
    if (this.store.get(key) !== before) this.onChange();
  }

  /** Opens `key` until `until` (extending, never shortening). */
  open(key: string, until: number, now: number, reason: string): void {
    this.update(key, (s) => openCircuit(s, until, now, reason, this.options, this.rng));
  }

  /** Records a hint-less failure; `probe` when the attempt held `key`'s probe lease. */
  failure(key: string, now: number, reason: string, probe = false): void {
    const lease = probe ? this.held.get(key) : undefined;
    if (probe) this.held.delete(key);
    this.update(key, (s) => recordFailure(s, now, reason, this.options, this.rng, probe && this.owns(s, lease)));
  }

  /** Records a success; only the probe closes a half-open circuit. */
  success(key: string, probe = false): void {
    // Nothing to record on a closed circuit without failures: no update, no closure.
    if (!probe) {
      const s = this.store.get(key);
      if (s === undefined || (s.state === 'closed' && s.failures === 0)) return;
    }
    const lease = probe ? this.held.get(key) : undefined;
    if (probe) this.held.delete(key);
    this.update(key, (s) => recordSuccess(s, probe && this.owns(s, lease)));
  }

  /** Gives back a half-open probe lease untested, so that the next request may probe at once. */
  release(key: string, now: number): void {
    const lease = this.held.get(key);
    this.held.delete(key);
    this.update(key, (s) =>
      s.state === 'half-open' && this.owns(s, lease)
        ? { state: 'open', until: now, reason: s.reason, opens: s.opens }
        : s,
    );
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
