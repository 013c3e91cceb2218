import { CLOSED, joinCircuit, type CircuitState } from '../core/circuit.js';
import type { CircuitUpdate } from '../core/state-store.js';
import { boundCircuit, DEFAULT_FLEET_BOUNDS, type FleetBounds } from './fleet-bounds.js';

/** The one atomic operation a shared store needs for circuits: compare-and-set on a stored value. */
export interface CircuitBackend {
  /**
   * Sets `scope` to `state` if its stored value is still `expected` ('' for none), publishing the
   * change to the fleet; answers the value stored afterwards either way.
   */
  cas(scope: string, expected: string, state: string, ttlMs: number): Promise<{ ok: boolean; value: string }>;
}

interface Entry {
  /** The state this replica acts on: the fleet's, with this replica's unsent changes applied. */
  state: CircuitState | undefined;
  /** The fleet's value as last seen (`<seq>|<json>`), '' for none. */
  value: string;
  seq: number;
  /** Changes applied here and not yet in the fleet's state, in order. */
  pending: CircuitUpdate[];
  /** Changed here while the fleet was out of reach. */
  dirty: boolean;
  /** Work on this scope (writes, leases) runs one at a time, in order. */
  chain: Promise<void>;
  draining: boolean;
}

/** Past its window, a circuit's record is kept this long, then Redis forgets it. */
const RETAIN_MS = 3_600_000;
/** More changes than this waiting on one scope means the store is not keeping up: serve locally. */
const MAX_PENDING = 256;
const MAX_TRIES = 8;
/** How long a replica that lost the fleet still honours another's probe lease (its answer is usually back). */
const FOREIGN_PROBE_MS = 1000;
/** Scopes come from the config's ids (a few per target): news of more than this many is not a fleet's. */
const MAX_SCOPES = 100_000;

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

function ttlOf(s: CircuitState, now: number): number {
  const end = s.state === 'open' ? s.until : s.state === 'half-open' ? s.leaseUntil : now;
  return Math.ceil(Math.max(0, end - now) + RETAIN_MS);
}

const fold = (fs: readonly CircuitUpdate[], s: CircuitState | undefined) =>
  fs.reduce<CircuitState>((acc, f) => f(acc), s ?? CLOSED);

/**
 * Circuits shared by a fleet: a local cache that answers every read at once, kept current by
 * the fleet's change messages. A change applies here at once and is written in the background by
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
  ) {}

  /** A value the fleet stored or announced, bounded; `entry` counts a value that is not valid (once, where it comes in). */
  private read(value: string, entry = false): { seq: number; state: CircuitState | undefined } {
    const stored = readStored(value, this.now(), this.trust.bounds);
    if (entry && stored.invalid) this.trust.onRejected?.();
    return stored;
  }

  private entry(scope: string): Entry {
    let e = this.entries.get(scope);
    if (!e) {
      e = {
        state: undefined,
        value: '',
        seq: 0,
        pending: [],
        dirty: false,
        chain: Promise.resolve(),
        draining: false,
      };
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

  /** Takes in a change another replica (or this one) made, as the fleet announced it. */
  onMessage(scope: string, value: string): void {
    if (!this.entries.has(scope) && this.entries.size >= (this.trust.maxScopes ?? MAX_SCOPES))
      return this.trust.onRejected?.();
    const { seq, state } = this.read(value, true);
    const e = this.entry(scope);
    if (seq <= e.seq) return;
    e.value = value;
    e.seq = seq;
    const before = e.state;
    e.state = e.pending.length > 0 ? fold(e.pending, state) : state;
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
    this.shared = true;
    const now = this.now();
    let pushed = 0;
    for (const scope of new Set([...this.entries.keys(), ...stored.keys()])) {
      const e = this.entry(scope);
      const value = stored.get(scope) ?? '';
      const { seq, state } = this.read(value, true);
      const local = e.state;
      Object.assign(e, { value, seq, state, pending: [], dirty: false, draining: false, chain: Promise.resolve() });
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
    const generation = this.generation;
    for (let tries = 0; e.pending.length > 0 && tries < MAX_TRIES; tries++) {
      const fs = [...e.pending];
      const base = this.read(e.value).state;
      const next = fold(fs, base);
      if (base !== undefined && JSON.stringify(next) === JSON.stringify(base)) {
        e.pending.splice(0, fs.length);
        continue;
      }
      let answer: { ok: boolean; value: string };
      try {
        answer = await this.backend.cas(scope, e.value, JSON.stringify(next), ttlOf(next, this.now()));
      } catch (error) {
        if (generation === this.generation) this.onFailure(error);
        return;
      }
      if (generation !== this.generation) return;
      if (answer.ok) e.pending.splice(0, fs.length);
      this.seen(scope, e, answer.value);
      if (answer.ok) tries = -1;
    }
    e.draining = false;
    if (e.pending.length > 0) this.onFailure(new Error(`circuit ${scope} kept changing under this replica`));
  }

  private async casLease(scope: string, e: Entry, f: (s: CircuitState) => CircuitState | undefined): Promise<boolean> {
    const generation = this.generation;
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      const next = f(this.read(e.value).state ?? CLOSED);
      if (next === undefined) return false;
      let answer: { ok: boolean; value: string };
      try {
        answer = await this.backend.cas(scope, e.value, JSON.stringify(next), ttlOf(next, this.now()));
      } catch (error) {
        if (generation === this.generation) this.onFailure(error);
        return false;
      }
      if (generation !== this.generation) return false;
      this.seen(scope, e, answer.value);
      if (answer.ok) return true;
    }
    return false;
  }

  /** Records the fleet's value as a write answered it; the state here is that plus what is still pending. */
  private seen(scope: string, e: Entry, value: string): void {
    const { seq } = this.read(value, true);
    // '' is no record at all (expired, or Redis came back empty); an older value is news already had.
    if (value === '' || seq >= e.seq) [e.value, e.seq] = [value, value === '' ? 0 : seq];
    const before = e.state;
    const fleet = this.read(e.value).state;
    e.state = e.pending.length > 0 ? fold(e.pending, fleet) : fleet;
    if (JSON.stringify(before) !== JSON.stringify(e.state)) this.onRemoteChange(scope);
  }
}
