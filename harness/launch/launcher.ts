import type { ProviderEndpoint } from '../../simulator/index.js';

/** A router ready to take load. */
export interface RouterLaunch {
  /** Its OpenAI-compatible base URL, e.g. `http://127.0.0.1:8080/v1`. */
  baseUrl: string;
  /** How the report names it. */
  description: string;
  /** Something secret was removed from `description` (a command's variables, headers, credentials). */
  redacted?: boolean;
  /** A fleet: each replica's base URL (the first is `baseUrl`). */
  replicas?: string[];
  /** Files holding the router's output (a fleet's: one per replica), kept with the report. */
  logs?: string[];
  /**
   * The ids of the processes the harness started for it (each replica's `sh -c`), whose trees'
   * CPU starvation the run measures; none for a router running elsewhere (at a URL), absent for a
   * router in the harness's own process (its starvation is the event loop's, measured anyway).
   */
  pids?(): number[];
  /**
   * A fleet's `pids`, one list per replica in the order of `replicas`, so that each replica's
   * starvation is measured apart and explains only the requests that replica served.
   */
  replicaPids?(): number[][];
  stop(): Promise<void>;
}

/** What a router needs to reach the simulated providers. */
export interface LaunchContext {
  endpoints: ProviderEndpoint[];
  simOrigin: string;
  seed: number;
  /** `THROTTLELAB_*` variables naming every provider's base URL, vendor, models and keys. */
  env: Record<string, string>;
  /** A fleet run: what to start and where its state and logs go. */
  fleet?: FleetContext;
  /** Aborts when the user stops the run (Ctrl-C): a router still starting is stopped at once. */
  signal?: AbortSignal;
}

/** What a launcher needs to start a fleet. */
export interface FleetContext {
  replicas: number;
  store: 'memory' | 'redis';
  /** The run's Redis (also in `env` as THROTTLELAB_REDIS_URL) when the store is redis. */
  redisUrl?: string;
  /** A key prefix for this run's keys in Redis. */
  keyPrefix: string;
  /** A folder for the replicas' logs. */
  logDir: string;
}

/** Starts (or reaches) the router under test. */
export type RouterLauncher = (ctx: LaunchContext) => Promise<RouterLaunch>;
