import type { ClientOutcome } from '../load/client-outcome.js';

/**
 * Which replica of a fleet sent each attempt, for evidence. Providers see every replica's attempts
 * (the ledger is the fleet's), so retry-after, single-probe and amplification judge the fleet as
 * one router; this only names the replica behind each attempt, through the client request that
 * caused it (its correlation id), since the load generator knows where it sent each request.
 */
export interface FleetView {
  replicas: number;
  /** The replica that served a client request, by its correlation id. */
  of(correlationId: string | null): number | undefined;
}

/** The fleet behind a run's outcomes; undefined for a single router. */
export function fleetViewOf(outcomes: readonly ClientOutcome[]): FleetView | undefined {
  const byId = new Map<string, number>();
  let replicas = 0;
  for (const o of outcomes) {
    if (o.replica === undefined) continue;
    byId.set(o.id, o.replica);
    replicas = Math.max(replicas, o.replica + 1);
  }
  if (byId.size === 0) return undefined;
  return { replicas, of: (id) => (id === null ? undefined : byId.get(id)) };
}

/** `replica 2`, or `an unknown replica` for an attempt no client request accounts for. */
export function replicaName(index: number | undefined): string {
  return index === undefined ? 'an unknown replica' : `replica ${index}`;
}
