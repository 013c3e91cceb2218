/** One limit as a replica observed it: what the vendor said, and when (epoch ms). */
export interface SharedLimit {
  limit: number | null;
  remaining: number;
  resetAt: number;
  observedAt: number;
}

/** A target's limits as last observed, shared so that other replicas need not learn them by a 429. */
export interface SharedLimits {
  requests?: SharedLimit;
  tokens?: SharedLimit;
  refill: 'continuous' | 'window' | 'unknown';
}

/**
 * What one replica tells the others in one report. Everything is keyed by target id
 * (`provider/key/model`, ids from the config) or by time: never a key's value.
 */
export interface FleetFacts {
  /** Limits observed since the last report, the latest per target. */
  limits: Array<[target: string, limits: SharedLimits]>;
  /**
   * This replica's requests in flight and their estimated tokens per target, whole (a target left
   * out has none); absent when unchanged since the last report.
   */
  held?: Array<[target: string, requests: number, tokens: number]>;
  /** Retry-budget counts since the last report, by the start of their bucket. */
  budget: Array<[bucketStart: number, requests: number, extras: number]>;
  /** Usage counted since the last report, per target and counter. */
  usage: Array<[target: string, counts: Record<string, number>]>;
}

/** The router's side of the fleet: what a shared store sends and where what it hears goes. */
export interface FleetLink {
  /** This replica's news since the last call; `full` asks for its in-flight counts even if unchanged. */
  collect(full: boolean): FleetFacts;
  /** Takes in another replica's report (`from` names it). */
  apply(from: string, facts: FleetFacts, now: number): void;
  /** Forgets replicas not heard from since `before` (their in-flight counts stop counting). */
  expire(before: number): void;
}
