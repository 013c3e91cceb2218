import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CircuitBook } from '../core/circuit-book.js';
import { decideCircuits, type BreakerSettings } from '../core/circuit-policy.js';
import type { CircuitOptions } from '../core/circuit.js';
import { Ewma } from '../core/ewma.js';
import { createRng } from '../core/rng.js';
import type { AttemptOutcome } from '../core/types.js';
import { createMemoryStore } from '../state/memory-store.js';
import type { AttemptResult } from './attempt.js';
import { learnFromAttempt, type LearnContext } from './learn.js';
import { Meter } from './meter.js';
import type { TargetRuntime } from './target.js';

const BREAKER: BreakerSettings = {
  openForMs: 2000,
  quotaOpenForMs: 60_000,
  rejectedOpenForMs: 120_000,
  maxOpenForMs: 600_000,
  maxBackoffOpenForMs: 16_000,
  floorMs: 100,
};
const OPTIONS: CircuitOptions = {
  failureThreshold: 3,
  openMs: 2000,
  maxOpenMs: 600_000,
  maxBackoffMs: 16_000,
  // Jitter draws from the rng: a path that drew once more or less than the other would show.
  jitterRatio: 0.2,
  probeLeaseMs: 5000,
};

// Two providers, two keys each, two models each: attempts that share a provider or a key scope.
const TARGET_IDS = ['p/a/m', 'p/a/n', 'p/b/m', 'p/b/n', 'q/a/m', 'q/a/n', 'q/b/m', 'q/b/n'];

function targetsOf(): TargetRuntime[] {
  return TARGET_IDS.map((id) => {
    const [provider, key, model] = id.split('/') as [string, string, string];
    const providerScope = `provider:${provider}`;
    const keyScope = `key:${provider}/${key}`;
    const limitScope = `limit:${id}`;
    return {
      id,
      provider,
      key,
      model,
      providerScope,
      keyScope,
      limitScope,
      scopes: [providerScope, keyScope, limitScope],
      ttft: new Ewma(),
      latency: new Ewma(),
      disabledUntil: 0,
    } as unknown as TargetRuntime;
  });
}

interface Pending {
  target: TargetRuntime;
  probes: readonly string[];
  startedAt: number;
}

/** One router's worth of learning state, fed the same history as its twin. */
interface World {
  ctx: LearnContext;
  targets: TargetRuntime[];
  pending: Pending[];
  learn: (pick: Pending, outcome: AttemptOutcome, result: AttemptResult, now: number) => void;
}

function worldOf(seed: number, learn: (w: World) => World['learn']): World {
  const ctx: LearnContext = {
    circuits: new CircuitBook(createMemoryStore(), OPTIONS, createRng(seed)),
    breaker: BREAKER,
    reliability: new Map([
      ['p', new Ewma()],
      ['q', new Ewma()],
    ]),
    meter: new Meter(),
  };
  const w: World = { ctx, targets: targetsOf(), pending: [], learn: () => {} };
  w.learn = learn(w);
  return w;
}

// The router's learning, fast path included.
const routerLearning = (w: World) => (pick: Pending, outcome: AttemptOutcome, result: AttemptResult, now: number) =>
  learnFromAttempt(w.ctx, pick, outcome, result, pick.startedAt, now);

// The breaker rule as decideCircuits states it, for every outcome: no fast path.
const ruleLearning = (w: World) => (pick: Pending, outcome: AttemptOutcome, result: AttemptResult, now: number) => {
  const { target } = pick;
  const decision = decideCircuits({
    outcome,
    scopes: target,
    probes: pick.probes,
    breaker: w.ctx.breaker,
    now,
    providerCircuit: w.ctx.circuits.get(target.providerScope),
  });
  if (decision.reliability !== undefined) w.ctx.reliability.get(target.provider)!.add(decision.reliability);
  if (decision.disableTargetUntil !== undefined) target.disabledUntil = decision.disableTargetUntil;
  w.ctx.circuits.apply(decision.ops, now);
  if (result.kind === 'json') {
    target.ttft.add(result.firstByteAt - pick.startedAt);
    target.latency.add(result.endedAt - pick.startedAt);
  }
};

/** Passes a target's scopes in order, as the router admits an attempt; refused, the leases taken go back. */
function start(w: World, index: number, now: number): void {
  const target = w.targets[index]!;
  const probes: string[] = [];
  for (const scope of target.scopes) {
    const pass = w.ctx.circuits.pass(scope, now);
    if (!pass) {
      for (const s of probes) w.ctx.circuits.release(s, now);
      return;
    }
    if (pass.probe) probes.push(scope);
  }
  w.pending.push({ target, probes, startedAt: now });
}

function finish(w: World, which: number, outcome: AttemptOutcome, now: number): void {
  if (w.pending.length === 0) return;
  const [pick] = w.pending.splice(which % w.pending.length, 1);
  const result: AttemptResult =
    outcome.kind === 'ok'
      ? {
          kind: 'json',
          body: '{}',
          usage: { promptTokens: 1, completionTokens: 1, estimated: false },
          firstByteAt: now,
          endedAt: now,
        }
      : { kind: 'failed', outcome, endedAt: now };
  w.learn(pick!, outcome, result, now);
}

/** Everything learning can change, comparable between the two worlds. */
function snapshot(w: World) {
  return {
    circuits: [...w.ctx.circuits.entries()].sort(([a], [b]) => a.localeCompare(b)),
    reliability: [...w.ctx.reliability].map(([p, e]) => [p, e.get(-1)]),
    targets: w.targets.map((t) => [t.id, t.disabledUntil, t.ttft.get(-1), t.latency.get(-1)]),
    pending: w.pending.map((p) => [p.target.id, p.probes]),
  };
}

const waitMs = fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: undefined });
const outcomeArb: fc.Arbitrary<AttemptOutcome> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'ok', status: 200 } as const), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant('rate_limited' as const), status: fc.constant(429), waitMs }), weight: 3 },
  {
    arbitrary: fc.record({ kind: fc.constant('quota_exhausted' as const), status: fc.constant(429), waitMs }),
    weight: 1,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('overloaded' as const), status: fc.constantFrom(503, 529), waitMs }),
    weight: 2,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('server_error' as const), status: fc.constantFrom(500, 502), waitMs }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('timeout' as const),
      phase: fc.constantFrom('headers' as const, 'first-token' as const, 'body' as const),
    }),
    weight: 3,
  },
  { arbitrary: fc.constant({ kind: 'network_error', message: 'ECONNRESET' } as const), weight: 1 },
  { arbitrary: fc.constant({ kind: 'stream_error', message: 'cut' } as const), weight: 1 },
  { arbitrary: fc.constant({ kind: 'auth_error', status: 401 } as const), weight: 1 },
  { arbitrary: fc.constant({ kind: 'not_found', status: 404 } as const), weight: 1 },
  { arbitrary: fc.constant({ kind: 'client_error', status: 400, message: 'bad' } as const), weight: 1 },
  { arbitrary: fc.constant({ kind: 'aborted' } as const), weight: 1 },
);

// A history: attempts start on a target and finish (in any order, so a success may land after a
// window its attempt was sent before) while time advances, sometimes past every window.
const stepArb = fc.record({
  advanceMs: fc.oneof(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 30_000 })),
  action: fc.oneof(
    fc.record({ kind: fc.constant('start' as const), target: fc.nat(TARGET_IDS.length - 1) }),
    fc.record({ kind: fc.constant('finish' as const), which: fc.nat(), outcome: outcomeArb }),
  ),
});

describe('learnFromAttempt', () => {
  it('decides exactly what decideCircuits decides, fast path included, over any history of attempts', () => {
    fc.assert(
      fc.property(fc.integer(), fc.array(stepArb, { maxLength: 80 }), (seed, steps) => {
        const router = worldOf(seed, routerLearning);
        const rule = worldOf(seed, ruleLearning);
        let now = 1_000_000;
        for (const { advanceMs, action } of steps) {
          now += advanceMs;
          for (const w of [router, rule]) {
            if (action.kind === 'start') start(w, action.target, now);
            else finish(w, action.which, action.outcome, now);
          }
          expect(snapshot(router)).toEqual(snapshot(rule));
        }
      }),
      { numRuns: 300 },
    );
  });
});
