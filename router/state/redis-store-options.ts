import type { Clock } from '../core/clock.js';
import type { StateStore } from '../core/state-store.js';
import type { FleetBounds } from './fleet-bounds.js';

/** What happened to the link with the fleet, said once per change. */
export type StoreEvent =
  | { kind: 'joined'; url: string; prefix: string; pushed: number; rejoin: boolean }
  | { kind: 'left'; url: string; reason: string; atStart: boolean }
  /** The first value read from Redis that was not valid (said once; `health().rejected` counts them all). */
  | { kind: 'rejected'; url: string; what: string };

/** Options of `createRedisStore`. */
export interface RedisStoreOptions {
  url: string;
  keyPrefix: string;
  /** This replica's name in the fleet. */
  replica: string;
  clock: Clock;
  /** A command slower than this counts as Redis being out of reach. */
  timeoutMs: number;
  /** Capacity, in-flight and retry-budget news is published this often (one PUBLISH, when there is news). */
  flushMs: number;
  /**
   * How often a replica says it is alive (with its in-flight counts whole) and writes the latest
   * limits and its usage counts to Redis, where the fleet's totals live; default 1 s.
   */
  heartbeatMs?: number;
  onEvent?: (event: StoreEvent) => void;
  /** What values read from Redis are held to: the config's own bounds (default: the config's defaults). */
  bounds?: FleetBounds;
  /** The longest `close()` waits on Redis before dropping the connections (default twice `timeoutMs`, at least 1 s). */
  closeTimeoutMs?: number;
}

/** A Redis store, and a way to wait until it has joined the fleet. */
export interface RedisStore extends StateStore {
  /**
   * Resolves true once state is shared; false if Redis cannot be reached at all (the first attempt
   * failed) or state is not shared within `timeoutMs`.
   */
  joined(timeoutMs: number): Promise<boolean>;
}
