import type { CircuitState } from './circuit.js';
import type { FleetLink } from './fleet.js';
import type { SharedItems } from './shared-items.js';

/** A circuit transition: a pure function of the state it is applied to, so it can be applied again. */
export type CircuitUpdate = (s: CircuitState) => CircuitState;

/**
 * Where the router's state lives: circuits by scope, and for a fleet the channel through which
 * replicas share capacity, in-flight requests, retry-budget counts and usage. The memory store
 * serves one process; a shared store (Redis) makes replicas behave as one router.
 *
 * Reads are local and synchronous (a shared store answers from a cache it keeps current), so the
 * hot path never waits on the network. States carry absolute times (epoch ms), never relative
 * TTLs, so that replicas and restarts agree on them.
 */
export interface StateStore {
  /** This replica's name in the fleet (it appears in lease ids, never a secret). */
  readonly replica: string;
  /** A circuit's state here, as last known. */
  get(scope: string): CircuitState | undefined;
  /** Every scope and state, for the state view and metrics. */
  entries(): Iterable<[string, CircuitState]>;
  /**
   * Applies `f` to a circuit at once here and, for a shared store, to the fleet's state in the
   * background (re-applied to the newer state if another replica changed it first).
   */
  update(scope: string, f: CircuitUpdate): void;
  /**
   * Tries to take a circuit's probe lease: `f` gives the half-open state to move to from the
   * state it sees, or undefined when no lease can be taken from it. Exactly one contender in the
   * whole fleet wins. A store that can decide at once returns a boolean; a shared one a promise
   * (the caller never waits on it: it fails over and uses the lease once won).
   */
  lease(scope: string, f: (s: CircuitState) => CircuitState | undefined): boolean | Promise<boolean>;
  /** Calls `listener` with a scope whenever another replica changes that circuit. */
  onRemoteChange(listener: (scope: string) => void): void;
  /** Connects the router's local books to the fleet; the memory store has no fleet and ignores it. */
  link(fleet: FleetLink): void;
  /** Whether state is shared right now, and what went wrong, for `/metrics`, `/state` and the log. */
  health(): StoreHealth;
  /** Stops timers and closes connections. */
  close(): Promise<void>;
  /** The fleet's Responses items, where the store is shared (Redis); absent for the memory store. */
  readonly items?: SharedItems;
}

/** A store's health as `/metrics` shows it. */
export interface StoreHealth {
  kind: 'memory' | 'redis';
  /** True while decisions are shared with the fleet; false while serving on local state. */
  shared: boolean;
  /** Times the router fell back to local state (Redis slow, down or restarted). */
  fallbacks: number;
  /** Times it rejoined the fleet after a fallback. */
  rejoins: number;
  /** Commands that failed or timed out. */
  errors: number;
  /** Circuit writes waiting for the shared store. */
  pendingWrites: number;
  /** Other replicas heard from recently. */
  peers: number;
  /** Values read from the shared store that were not valid (dropped); absent for the memory store. */
  rejected?: number;
  /** Why the store is not shared, while it is not. */
  lastError?: string;
}
