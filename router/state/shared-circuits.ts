import { CLOSED, joinCircuit, type CircuitState } from '../core/circuit.js';
import type { CircuitUpdate } from '../core/state-store.js';
import type { CircuitBackend } from './circuit-backend.js';
import { CircuitConfirmations } from './circuit-confirmations.js';
import { DEFAULT_FLEET_BOUNDS, type FleetBounds } from './fleet-bounds.js';
import { readStored } from './read-stored.js';
import { fold, newEntry, same, ttlOf, type Entry } from './circuit-entry.js';

/** More changes than this waiting on one scope means the store is not keeping up: serve locally. */
const MAX_PENDING = 256;
const MAX_TRIES = 8;
/** How long a replica that lost the fleet still honours another's probe lease (its answer is usually back). */
const FOREIGN_PROBE_MS = 1000;
/** Scopes come from the config's ids (a few per target): news of more than this many is not a fleet's. */
const MAX_SCOPES = 100_000;

/**
 * Circuits shared by a fleet: a local cache that answers every read at once, kept current by
 * the fleet's change messages, each confirmed by a read of what Redis holds. A change applies here at once and is written in the background by
 * compare-and-set against the value last seen; when another replica changed the circuit first, the
 * change (a pure function) is applied again to the newer value. Probe leases go through the same
 * compare-and-set, so exactly one replica wins each. While the fleet is out of reach everything
 * is local, and a rejoin brings back what only this replica knew (windows only extend).
 */
export class SharedCircuits {
  private readonly entries = new Map<string, Entry>();
  private shared = false;
  /** Bumped whenever the link is lost or re-established, so that answers to older work are dropped. */
  private generation = 0;
  private readonly confirmations: CircuitConfirmations;

  constructor(
    private readonly backend: CircuitBackend,
    private readonly now: () => number,
    private readonly onRemoteChange: (scope: string) => void,
    private readonly onFailure: (error: unknown) => void,
    /** This replica's name, which its probe leases start with (`<replica>#<n>`). */
    private readonly replica?: string,
    /**
     * What a value read from the fleet is held to, who hears of one that is not valid, and how many
     * scopes news is taken of (default 100,000).
     */
    private readonly trust: { bounds: FleetBounds; onRejected?: () => void; maxScopes?: number } = {
      bounds: DEFAULT_FLEET_BOUNDS,
    },
  ) {
    this.confirmations = new CircuitConfirmations(
      (scopes) => this.backend.read(scopes),
      (scope, value, round) => this.confirmed(scope, value, round),
      (error) => this.onFailure(error),
    );
  }

  /** A value the fleet stored or announced, bounded; `entry` counts a value that is not valid (once, where it comes in). */
  private read(value: string, entry = false): { seq: number; state: CircuitState | undefined } {
    const stored = readStored(value, this.now(), this.trust.bounds);
    if (entry && stored.invalid) this.trust.onRejected?.();
    return stored;
  }

  private entry(scope: string): Entry {
    let e = this.entries.get(scope);
    if (!e) {
      e = newEntry();
      this.entries.set(scope, e);
    }
    return e;
  }

  get(scope: string): CircuitState | undefined {
    return this.entries.get(scope)?.state;
  }

  *list(): IterableIterator<[string, CircuitState]> {
    for (const [scope, e] of this.entries) if (e.state) yield [scope, e.state];
  }

  /** Changes waiting to reach the fleet. */
  pendingWrites(): number {
    let n = 0;
    for (const e of this.entries.values()) n += e.pending.length;
    return n;
  }

  update(scope: string, f: CircuitUpdate): void {
    const e = this.entry(scope);
    const current = e.state ?? CLOSED;
    const next = f(current);
    if (next === current) return;
    e.state = next;
    if (!this.shared) {
      e.dirty = true;
      return;
    }
    e.pending.push(f);
    if (e.pending.length > MAX_PENDING) return this.onFailure(new Error('writes are not keeping up'));
    if (!e.draining) {
      e.draining = true;
      this.enqueue(e, () => this.drain(scope, e));
    }
  }

  lease(scope: string, f: (s: CircuitState) => CircuitState | undefined): boolean | Promise<boolean> {
    const e = this.entry(scope);
    if (!this.shared) {
      const next = f(e.state ?? CLOSED);
      if (next === undefined) return false;
      e.state = next;
      e.dirty = true;
      return true;
    }
    if (f(e.state ?? CLOSED) === undefined) return false;
    // Answered either way: a lease asked for just before the link was lost is refused, never left
    // pending (a replica waiting on it would keep the scope closed to itself for good).
    return new Promise((resolve) =>
      this.enqueue(
        e,
        () => this.casLease(scope, e, f).then(resolve),
        () => resolve(false),
      ),
    );
  }

  /**
   * Takes in a change another replica (or this one) made, as the fleet's channel announced it: a
   * hint, acted on at once and confirmed by reading the scope's stored value (one read for every
   * scope heard of meanwhile). Anyone can PUBLISH, so a message alone can neither hold back later
   * news (a forged sequence number) for longer than that read, nor be what a write compares with.
   */
  onMessage(scope: string, value: string): void {
    if (!this.entries.has(scope) && this.entries.size >= (this.trust.maxScopes ?? MAX_SCOPES))
      return this.trust.onRejected?.();
    const { seq, state } = this.read(value, true);
    const e = this.entry(scope);
    if (seq <= e.seq || value === e.value || value === e.hint?.value) return;
    if (!this.shared) return;
    // Heard before the next read goes: that read's answer is at least as new as this message.
    e.heard = this.confirmations.round;
    this.confirmations.add(scope);
    if (e.hint !== undefined && seq <= e.hint.seq) return;
    e.hint = { value, seq, state };
    this.settleState(scope, e);
  }

  /** What Redis held for `scope` when confirming read `round` was answered. */
  private confirmed(scope: string, value: string, round: number): void {
    const e = this.entries.get(scope);
    if (!e) return;
    this.adopt(e, value);
    // A hint heard before the read went is no newer than its answer, whatever its number said.
    if (e.heard <= round) e.hint = undefined;
    this.settleState(scope, e);
  }

  /** Takes a value Redis answered as the fleet's; a hint it makes stale goes. */
  private adopt(e: Entry, value: string): void {
    [e.value, e.seq] = [value, this.read(value, true).seq];
    if (e.hint !== undefined && e.hint.seq <= e.seq) e.hint = undefined;
  }

  /** The state here: the fleet's (or the newer hint's) with the changes still pending; told when it moved. */
  private settleState(scope: string, e: Entry): void {
    const before = e.state;
    const fleet = e.hint !== undefined ? e.hint.state : this.read(e.value).state;
    e.state = e.pending.length > 0 ? fold(e.pending, fleet) : fleet;
    if (JSON.stringify(before) !== JSON.stringify(e.state)) this.onRemoteChange(scope);
  }

  /**
   * The fleet is out of reach: everything is local from now on, until `rejoin`. Another replica's
   * probe lease is given up here (see below).
   */
  leave(): void {
    if (!this.shared) return;
    this.shared = false;
    this.generation++;
    this.confirmations.reset();
    const now = this.now();
    const freed: string[] = [];
    for (const [scope, e] of this.entries) {
      if (e.pending.length > 0) e.dirty = true;
      e.pending = [];
      e.draining = false;
      e.chain = Promise.resolve();
      const s = e.state;
      // Another replica's probe lease: its answer cannot reach this replica until the fleet is
      // back, and a taken lease lasts as long as an attempt may (30 s by default), longer than most
      // outages. Serving alone, this replica probes for itself, but only after FOREIGN_PROBE_MS:
      // the link lost just as that probe went out, a probe at once would meet the provider beside
      // it. On rejoin it takes the fleet's record (and that probe's answer).
      if (s?.state === 'half-open' && this.isForeign(s.lease) && s.leaseUntil > now) {
        const until = Math.min(s.leaseUntil, now + FOREIGN_PROBE_MS);
        e.state = { state: 'open', until, reason: s.reason, opens: s.opens };
        freed.push(scope);
      }
    }
    // Requests waiting on those scopes may go now: told once everything is local.
    for (const scope of freed) this.onRemoteChange(scope);
  }

  /** Whether `lease` is known to be another replica's. */
  private isForeign(lease: string | undefined): boolean {
    return this.replica !== undefined && lease !== undefined && !lease.startsWith(`${this.replica}#`);
  }

  /**
   * Back in the fleet: `stored` is every circuit the fleet has. Its states replace the local ones,
   * except where this replica knows of a window open later; those are written back. Returns how
   * many were written back.
   */
  rejoin(stored: ReadonlyMap<string, string>): number {
    this.generation++;
    this.confirmations.reset();
    this.shared = true;
    const now = this.now();
    let pushed = 0;
    for (const scope of new Set([...this.entries.keys(), ...stored.keys()])) {
      const e = this.entry(scope);
      const value = stored.get(scope) ?? '';
      const { seq, state } = this.read(value, true);
      const local = e.state;
      Object.assign(e, {
        value,
        seq,
        state,
        hint: undefined,
        pending: [],
        dirty: false,
        draining: false,
        chain: Promise.resolve(),
      });
      if (local && joinCircuit(state ?? CLOSED, local, now, this.replica) !== (state ?? CLOSED)) {
        this.update(scope, (s) => joinCircuit(s, local, now, this.replica));
        pushed++;
      }
      if (JSON.stringify(local) !== JSON.stringify(e.state)) this.onRemoteChange(scope);
    }
    return pushed;
  }

  /** Runs `work` after the scope's earlier work, unless the link was lost or re-made meanwhile (`skipped` then). */
  private enqueue(e: Entry, work: () => Promise<void>, skipped?: () => void): void {
    const generation = this.generation;
    e.chain = e.chain.then(() => (generation === this.generation ? work() : skipped?.()));
  }

  /** Writes a scope's pending changes: applied to the fleet's value, again after each conflict. */
  private async drain(scope: string, e: Entry): Promise<void> {
    for (let tries = 0; e.pending.length > 0 && tries < MAX_TRIES; tries++) {
      const fs = [...e.pending];
      const changes = (s: CircuitState | undefined) => s === undefined || !same(fold(fs, s), s);
      // A hint in which the changes change nothing is checked against Redis's value instead.
      const hint = tries === 0 && e.hint !== undefined && changes(e.hint.state) ? e.hint : undefined;
      const base = hint ? hint.state : this.read(e.value).state;
      if (!changes(base)) {
        e.pending.splice(0, fs.length);
        continue;
      }
      const expected = hint?.value ?? e.value;
      const answer = await this.write(scope, expected, fold(fs, base));
      if (answer === undefined) return;
      if (answer.ok) e.pending.splice(0, fs.length);
      this.seen(scope, e, answer.value, expected);
      if (answer.ok) tries = -1;
    }
    e.draining = false;
    if (e.pending.length > 0) this.onFailure(new Error(`circuit ${scope} kept changing under this replica`));
  }

  private async casLease(scope: string, e: Entry, f: (s: CircuitState) => CircuitState | undefined): Promise<boolean> {
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      const hint = tries === 0 ? e.hint : undefined;
      const next = f((hint ? hint.state : this.read(e.value).state) ?? CLOSED);
      if (next === undefined) return false;
      const expected = hint?.value ?? e.value;
      const answer = await this.write(scope, expected, next);
      if (answer === undefined) return false;
      this.seen(scope, e, answer.value, expected);
      if (answer.ok) return true;
    }
    return false;
  }

  /**
   * One compare-and-set of `next` against `expected`: Redis's last answer, or on a first try the
   * channel's unconfirmed news (usually the fleet's value already, saving a round trip). Either
   * way Redis's answer is the fleet's value from then on (`seen`), so a forged message costs one
   * try at most. Undefined when the write failed or the link changed meanwhile.
   */
  private async write(
    scope: string,
    expected: string,
    next: CircuitState,
  ): Promise<{ ok: boolean; value: string } | undefined> {
    const generation = this.generation;
    let answer: { ok: boolean; value: string };
    try {
      answer = await this.backend.cas(scope, expected, JSON.stringify(next), ttlOf(next, this.now()));
    } catch (error) {
      if (generation === this.generation) this.onFailure(error);
      return undefined;
    }
    return generation === this.generation ? answer : undefined;
  }

  /**
   * Records the fleet's value as a write answered it; the state here is that plus what is still
   * pending. Redis answers one connection's commands in order, so an answer is never older than
   * the value a join, an earlier write or a read gave ('' is no record: expired, or Redis came back
   * empty).
   */
  private seen(scope: string, e: Entry, value: string, expected: string): void {
    // The hint compared with was heard before the write went: Redis's answer is newer, whatever its number.
    if (e.hint?.value === expected) e.hint = undefined;
    this.adopt(e, value);
    this.settleState(scope, e);
  }
}
