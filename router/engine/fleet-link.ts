import type { CapacityBook } from '../core/capacity.js';
import type { FleetFacts, FleetLink } from '../core/fleet.js';
import type { RetryBudget } from '../core/retry-budget.js';
import type { Meter } from './meter.js';

interface Peer {
  heardAt: number;
  /** Its requests in flight and their tokens, per target, as it last said. */
  held: Map<string, [number, number]>;
}

/**
 * The router's books as a fleet sees them: what this replica observed of capacity, holds in flight,
 * counted against the retry budget and metered is collected for a shared store to send; what the
 * other replicas report is taken in (newer limit observations, their in-flight counts summed per
 * target, their budget counts). Usage from others is not taken in: each replica's metrics are its
 * own, and the fleet's totals live in the store.
 */
export function createFleetLink(books: { capacity: CapacityBook; budget: RetryBudget; meter: Meter }): FleetLink {
  const peers = new Map<string, Peer>();
  const resum = (targets: Iterable<string>) => {
    for (const target of targets) {
      let requests = 0;
      let tokens = 0;
      for (const p of peers.values()) {
        const h = p.held.get(target);
        if (h) [requests, tokens] = [requests + h[0], tokens + h[1]];
      }
      books.capacity.setRemoteHeld(target, requests, tokens);
    }
  };
  return {
    collect(full): FleetFacts {
      const held = books.capacity.takeHeld(full);
      return {
        limits: books.capacity.takeObserved(),
        ...(held !== undefined ? { held } : {}),
        budget: books.budget.takeCounts(),
        usage: books.meter.takeUnreported(),
      };
    },
    apply(from, facts, now) {
      for (const [target, limits] of facts.limits) books.capacity.adopt(target, limits);
      for (const [start, requests, extras] of facts.budget) books.budget.addRemote(start, requests, extras);
      if (from === 'fleet') return;
      let peer = peers.get(from);
      if (!peer) peers.set(from, (peer = { heardAt: now, held: new Map() }));
      peer.heardAt = now;
      if (facts.held) {
        const touched = new Set(peer.held.keys());
        peer.held = new Map(facts.held.map(([t, r, k]) => [t, [r, k]]));
        for (const t of peer.held.keys()) touched.add(t);
        resum(touched);
      }
    },
    expire(before) {
      for (const [id, p] of peers) {
        if (p.heardAt >= before) continue;
        peers.delete(id);
        resum(p.held.keys());
      }
    },
  };
}
