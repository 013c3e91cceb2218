import type { CapacityBook } from '../core/capacity.js';
import type { CircuitBook } from '../core/circuit-book.js';
import type { Ewma } from '../core/ewma.js';
import type { Scored } from '../core/scoring.js';
import type { StoreHealth } from '../core/state-store.js';
import type { Meter } from './meter.js';
import type { TargetRuntime } from './target.js';

/** What the state view reads. */
export interface StateViewInput {
  now: number;
  /** The targets ranked for a nominal request. */
  ranking: Scored[];
  targets: readonly TargetRuntime[];
  circuits: CircuitBook;
  capacity: CapacityBook;
  reliability: ReadonlyMap<string, Ewma>;
  meter: Meter;
  retryBudgetRemaining: number;
  store: StoreHealth;
}

const round4 = (v: number) => Number(v.toFixed(4));

/** The `/state` document: each target's score, circuits, capacity, statistics and usage, best first. */
export function renderStateView(v: StateViewInput): unknown {
  const byId = new Map(v.targets.map((t) => [t.id, t]));
  return {
    at: new Date(v.now).toISOString(),
    retryBudgetRemaining: v.retryBudgetRemaining,
    store: v.store,
    targets: v.ranking.map((r) => {
      const t = byId.get(r.target)!;
      return {
        target: t.id,
        score: round4(r.score),
        scoreParts: Object.fromEntries(Object.entries(r.parts).map(([k, x]) => [k, round4(x)])),
        circuits: {
          provider: v.circuits.get(t.providerScope),
          key: v.circuits.get(t.keyScope),
          model: v.circuits.get(t.limitScope),
        },
        capacity: v.capacity.view(t.id, v.now),
        ttftMs: Math.round(t.ttft.get(0)),
        latencyMs: Math.round(t.latency.get(0)),
        reliability: round4(v.reliability.get(t.provider)!.get(1)),
        disabledUntil: t.disabledUntil > v.now ? new Date(t.disabledUntil).toISOString() : null,
        usage: v.meter.of(t.id) ?? null,
      };
    }),
  };
}
