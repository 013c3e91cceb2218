import { z } from 'zod';
import type { CircuitState } from '../core/circuit.js';
import type { FleetFacts, SharedLimits } from '../core/fleet.js';

/**
 * The bounds a replica holds its own decisions to, which it holds the fleet's to as well: anything
 * read from Redis (a channel message, a stored circuit, the stored limits) comes from a process the
 * replica cannot vouch for (another version, a broken replica, anyone who can PUBLISH), so it is
 * validated and clamped before it decides anything here.
 */
export interface FleetBounds {
  /** `breaker.maxOpenFor`: the longest window a circuit opens for, and the furthest a learned reset lies. */
  maxOpenMs: number;
  /** `breaker.jitterRatio`: a local decision adds up to this share of the window after it. */
  jitterRatio: number;
  /** The probe lease (`attempt.timeout`): no lease taken here lasts longer. */
  probeLeaseMs: number;
}

/** The config's defaults, for stores made without a config (tests, embedders). */
export const DEFAULT_FLEET_BOUNDS: FleetBounds = { maxOpenMs: 25 * 3_600_000, jitterRatio: 0.1, probeLeaseMs: 30_000 };

/** Clocks of replicas differ a little: a report's bucket this far in the future is still taken. */
const CLOCK_SKEW_MS = 5_000;
/** Far above any count a replica really reports in one message, far below what breaks arithmetic. */
const MAX_COUNT = 1_000_000;
const MAX_TOKENS = 1e12;
const MAX_ITEMS = 10_000;
/** Scopes, targets and replica names are config ids: short. */
const Id = z.string().min(1).max(512);
const Time = z.number().finite().nonnegative();
const Count = z.number().finite().nonnegative();

const Circuit = z.discriminatedUnion('state', [
  z.object({ state: z.literal('closed'), failures: z.number().int().nonnegative() }),
  z.object({ state: z.literal('open'), until: Time, reason: z.string(), opens: z.number().int().nonnegative() }),
  z.object({
    state: z.literal('half-open'),
    leaseUntil: Time,
    reason: z.string(),
    opens: z.number().int().nonnegative(),
    lease: z.string().max(512).optional(),
  }),
]);

const Limit = z.object({ limit: Count.nullable(), remaining: Count, resetAt: Time, observedAt: Time });
const Limits = z.object({
  requests: Limit.optional(),
  tokens: Limit.optional(),
  refill: z.enum(['continuous', 'window', 'unknown']),
});

/** A replica's report as it travels (short names: see fleet-message.ts). */
export const ReportSchema = z.object({
  r: Id,
  l: z
    .array(z.tuple([Id, Limits]))
    .max(MAX_ITEMS)
    .optional(),
  h: z
    .array(z.tuple([Id, Count, Count]))
    .max(MAX_ITEMS)
    .optional(),
  b: z
    .array(z.tuple([Time, Count, Count]))
    .max(MAX_ITEMS)
    .optional(),
});

/** A circuit change as the CAS script publishes it. */
export const CircuitMessageSchema = z.object({ c: Id, v: z.string().max(65_536) });

/** A circuit's state within bounds: windows no longer than a local decision makes them, leases no longer than ours. */
export function boundCircuit(raw: unknown, now: number, b: FleetBounds): CircuitState | undefined {
  const parsed = Circuit.safeParse(raw);
  if (!parsed.success) return undefined;
  const s = parsed.data;
  const reason = s.state === 'closed' ? '' : s.reason.slice(0, 200);
  const opens = s.state === 'closed' ? 0 : Math.min(s.opens, 1000);
  switch (s.state) {
    case 'closed':
      return { state: 'closed', failures: Math.min(s.failures, MAX_COUNT) };
    case 'open':
      return { state: 'open', until: Math.min(s.until, now + b.maxOpenMs * (1 + b.jitterRatio)), reason, opens };
    case 'half-open':
      return {
        state: 'half-open',
        leaseUntil: Math.min(s.leaseUntil, now + b.probeLeaseMs),
        reason,
        opens,
        ...(s.lease !== undefined ? { lease: s.lease } : {}),
      };
  }
}

const boundLimit = (l: z.infer<typeof Limit> | undefined, now: number, b: FleetBounds) =>
  l && {
    limit: l.limit,
    remaining: l.remaining,
    // An observation from the future would win over every real one: it is made now at the latest.
    observedAt: Math.min(l.observedAt, now),
    resetAt: Math.min(l.resetAt, now + b.maxOpenMs),
  };

/** A target's shared limits within bounds (a reset no further than `maxOpenFor`), or undefined when malformed. */
export function boundLimits(raw: unknown, now: number, b: FleetBounds): SharedLimits | undefined {
  const parsed = Limits.safeParse(raw);
  if (!parsed.success) return undefined;
  const { requests, tokens, refill } = parsed.data;
  return {
    refill,
    ...(requests ? { requests: boundLimit(requests, now, b) } : {}),
    ...(tokens ? { tokens: boundLimit(tokens, now, b) } : {}),
  };
}

/** A validated report's facts, clamped: counts bounded, no retry-budget bucket from the future. */
export function boundReport(r: z.infer<typeof ReportSchema>, now: number, b: FleetBounds): FleetFacts {
  const limits: FleetFacts['limits'] = [];
  for (const [target, l] of r.l ?? []) {
    const bounded = boundLimits(l, now, b);
    if (bounded) limits.push([target, bounded]);
  }
  const count = (n: number) => Math.min(Math.floor(n), MAX_COUNT);
  return {
    limits,
    held: r.h?.map(([t, requests, tokens]) => [t, count(requests), Math.min(tokens, MAX_TOKENS)]),
    budget: (r.b ?? [])
      .filter(([start]) => start <= now + CLOCK_SKEW_MS)
      .map(([start, requests, extras]) => [start, count(requests), count(extras)]),
    usage: [],
  };
}
