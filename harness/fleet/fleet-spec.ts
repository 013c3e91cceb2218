import { z } from 'zod';
import {
  FaultSchema,
  NonNegativeDuration,
  PositiveDuration,
  type FaultSpec,
  type Rule,
} from '../../simulator/scenario-index.js';

/**
 * The fleet fields of a scenario's `router` section: how many replicas run (each its own process,
 * port and log), where they keep their state, and how the load is spread across them.
 */
export const FLEET_FIELDS = {
  /** Replicas of the router, each a process of its own (1: a single router). */
  replicas: z.number().int().min(1).max(16).default(1),
  /**
   * memory: each replica keeps its own state; redis: they share it through a Redis the harness
   * starts for the run (a command router gets its URL as THROTTLELAB_REDIS_URL).
   */
  store: z.enum(['memory', 'redis']).default('memory'),
  /** round-robin: requests go to each replica in turn; skewed: one replica gets `skew` of them. */
  spread: z.enum(['round-robin', 'skewed']).default('round-robin'),
  /** The share of requests the first replica gets when the spread is skewed. */
  skew: z.number().gt(0).lt(1).default(0.8),
};

/**
 * A fault the harness plays on the Redis it started for the run: `down` stops it for `for` and
 * brings it back with its data (as a Redis with persistence or a failover would); `restart` brings
 * it back empty (after `for`, or at once); `pause` makes it answer nothing for `for` (a slow Redis).
 * `at` counts as the simulator's faults do, from the simulator's start.
 */
export const RedisFaultSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, {
    error: 'expected an id of lower-case letters, digits, "-" or "_"',
  }),
  kind: z.literal('redis'),
  at: NonNegativeDuration.default(0),
  for: PositiveDuration.optional(),
  mode: z.enum(['down', 'restart', 'pause']).default('down'),
});
export type RedisFaultSpec = z.output<typeof RedisFaultSchema>;

/** The `faults` list of a run scenario: the simulator's faults and the harness's `redis` faults. */
export const RUN_FAULTS = z.array(z.discriminatedUnion('kind', [...FaultSchema.options, RedisFaultSchema])).default([]);

/** Where each `redis` fault sat in the file's `faults` list, for locating problems. */
export type PlacedRedisFault = RedisFaultSpec & { index: number };

/**
 * Splits a run scenario's faults: the simulator's stay in `faults` (the simulator plays them), the
 * `redis` ones go to `redisFaults` (the harness plays them).
 */
export function splitFaults<S extends { faults: Array<FaultSpec | RedisFaultSpec> }>(
  s: S,
): Omit<S, 'faults'> & { faults: FaultSpec[]; redisFaults: PlacedRedisFault[] } {
  const faults: FaultSpec[] = [];
  const redisFaults: PlacedRedisFault[] = [];
  s.faults.forEach((f, index) => (f.kind === 'redis' ? redisFaults.push({ ...f, index }) : faults.push(f)));
  return { ...s, faults, redisFaults };
}

/**
 * The scenario as the simulator's rules must see it: its faults at the places they have in the
 * file (a sparse list: the `redis` faults' places are holes, which `forEach` skips), so that every
 * problem is located where it is.
 */
export function worldView<S extends { faults: FaultSpec[]; redisFaults: PlacedRedisFault[] }>(s: S): S {
  if (s.redisFaults.length === 0) return s;
  const placed: FaultSpec[] = new Array(s.faults.length + s.redisFaults.length);
  const holes = new Set(s.redisFaults.map((f) => f.index));
  let next = 0;
  for (let i = 0; i < placed.length; i++) if (!holes.has(i)) placed[i] = s.faults[next++]!;
  return { ...s, faults: placed };
}

type FleetScenario = {
  faults: FaultSpec[];
  redisFaults: PlacedRedisFault[];
  router: { kind: string; store?: 'memory' | 'redis'; replicas?: number };
};

/** The fleet's cross-field rules: `redis` faults need a Redis to play on, fault ids stay unique. */
export const FLEET_RULES: ReadonlyArray<Rule<FleetScenario>> = [
  (s, _ctx, push) => {
    const ids = new Set(s.faults.map((f) => f.id));
    for (const f of s.redisFaults) {
      const path = ['faults', f.index];
      if (ids.has(f.id))
        push({ code: 'SCENARIO_DUPLICATE_ID', path: [...path, 'id'], message: `fault id "${f.id}" is used twice` });
      ids.add(f.id);
      if (s.router.store !== 'redis')
        push({
          code: 'SCENARIO_INVALID_VALUE',
          path: [...path, 'kind'],
          message:
            'a redis fault needs the router to share its state through Redis: set router.store: redis (the harness starts that Redis and plays the fault on it)',
        });
      if (f.mode !== 'restart' && f.for === undefined)
        push({
          code: 'SCENARIO_MISSING_FIELD',
          path,
          message: `a redis "${f.mode}" fault needs "for" (how long Redis is ${f.mode === 'down' ? 'down' : 'paused'})`,
        });
    }
  },
];
