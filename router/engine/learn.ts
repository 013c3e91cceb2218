import type { CircuitBook } from '../core/circuit-book.js';
import { decideCircuits, type BreakerSettings, type PolicyOutcome } from '../core/circuit-policy.js';
import type { Ewma } from '../core/ewma.js';
import type { AttemptOutcome } from '../core/types.js';
import type { AttemptResult } from './attempt.js';
import type { Meter } from './meter.js';
import type { TargetRuntime } from './target.js';

/** What an attempt's outcome updates. */
export interface LearnContext {
  circuits: CircuitBook;
  breaker: BreakerSettings;
  reliability: ReadonlyMap<string, Ewma>;
  meter: Meter;
}

function decide(
  ctx: LearnContext,
  pick: { target: TargetRuntime; probes: readonly string[] },
  outcome: PolicyOutcome,
  at: number,
) {
  return decideCircuits({
    outcome,
    scopes: pick.target,
    probes: pick.probes,
    breaker: ctx.breaker,
    now: at,
    providerCircuit: ctx.circuits.get(pick.target.providerScope),
  });
}

/**
 * Learns from one attempt: applies the breaker rule (`decideCircuits`) to its circuits, feeds the
 * provider's reliability and the target's latency averages, and for a stream keeps learning when
 * it ends (a stream that fails after its first token still counts against the provider).
 */
export function learnFromAttempt(
  ctx: LearnContext,
  pick: { target: TargetRuntime; probes: readonly string[] },
  outcome: AttemptOutcome,
  result: AttemptResult,
  startedAt: number,
  now: number,
): void {
  const { target } = pick;
  if (outcome.kind !== 'aborted') target.measuredAt = now;
  if (outcome.kind === 'ok' && pick.probes.length === 0) {
    // The common case, as decideCircuits rules it (every scope a success, no lease held), without
    // building the decision: no arrays or objects per request (about 40 ns an attempt, measured by
    // test/bench/learn-fast-path.ts). learn.test.ts proves over generated histories that this copy
    // of the rule decides what decideCircuits decides.
    ctx.reliability.get(target.provider)!.add(1);
    ctx.circuits.success(target.providerScope);
    ctx.circuits.success(target.keyScope);
    ctx.circuits.success(target.limitScope);
    if (target.orgLimitScope) ctx.circuits.success(target.orgLimitScope);
  } else {
    const decision = decide(ctx, pick, outcome, now);
    if (decision.reliability !== undefined) ctx.reliability.get(target.provider)!.add(decision.reliability);
    if (decision.disableTargetUntil !== undefined) target.disabledUntil = decision.disableTargetUntil;
    ctx.circuits.apply(decision.ops, now);
  }
  if (result.kind === 'json') {
    target.ttft.add(result.firstByteAt - startedAt);
    target.latency.add(result.endedAt - startedAt);
  } else if (result.kind === 'stream') {
    target.ttft.add(result.firstContentAt - startedAt);
    void result.done.then((end) => {
      target.latency.add(end.endedAt - startedAt);
      ctx.meter.attempt(target.id, end.failure ? 'stream_error' : end.aborted ? 'aborted' : 'ok', end.usage);
      if (end.failure)
        ctx.circuits.apply(decide(ctx, pick, { kind: 'stream_failed_late' }, end.endedAt).ops, end.endedAt);
    });
  }
}
