import type { CacheAffinity } from '../core/cache-affinity.js';
import type { AttemptOutcome } from '../core/types.js';
import { runAttempt, type AttemptEnv, type AttemptResult } from './attempt.js';
import { attemptRecord } from './attempt-record.js';
import { learnFromAttempt, type LearnContext } from './learn.js';
import { prefixesToRemember } from './prefix-keys.js';
import type { RequestState } from './request-state.js';
import { answered, untranslatable, upstreamRejected, type RouteResult } from './route-result.js';
import type { Pick, Selector } from './selector.js';
import type { Wakeup } from './wakeup.js';

/** What sending a picked attempt uses and updates. */
export interface PickEnv {
  attempt: AttemptEnv;
  learning: LearnContext;
  selector: Selector;
  wakeup: Wakeup;
  /** Where each prompt prefix was last served, when cache affinity is on. */
  affinity: CacheAffinity | undefined;
}

/**
 * Sends one attempt to the picked target and books it: recorded on the request, metered, learned
 * from (circuits, averages), and one waiter woken once its slot is free. An attempt that could not
 * be sent gives its probe leases back untested and is not blamed on the provider.
 */
export async function attemptPick(
  env: PickEnv,
  pick: Pick,
  state: RequestState,
  canFailOver = false,
): Promise<AttemptResult> {
  const { target } = pick;
  const { clock } = env.attempt;
  const startedAt = clock.now();
  // Its prefixes held by no target are claimed for this one while the attempt is out (released if
  // it fails): also those of a request warm by another of its keys (its prompt_cache_key, say).
  const claimed = env.affinity !== undefined && state.prefixes.length > 0;
  if (claimed) env.affinity!.claim(prefixesToRemember(state.prefixes), target.id, startedAt);
  const result = await runAttempt(env.attempt, {
    target,
    req: state.req,
    api: state.api,
    stream: state.stream,
    clientWantsUsage: state.req.stream_options?.include_usage === true,
    deadline: state.deadline,
    signal: state.signal,
    forward: state.forward,
    raw: state.raw,
    admissionTokens: env.selector.admissionTokens(target, state),
    canFailOver,
  });
  if (claimed && (result.kind === 'failed' || result.kind === 'unsent'))
    env.affinity!.release(prefixesToRemember(state.prefixes), target.id);
  if (result.kind === 'unsent') {
    env.selector.releaseProbes(pick, clock.now());
    return result;
  }
  const outcome: AttemptOutcome = result.kind === 'failed' ? result.outcome : { kind: 'ok', status: 200 };
  state.attempts.push(attemptRecord(target, startedAt, result, outcome));
  if (result.kind !== 'stream')
    env.learning.meter.attempt(target.id, outcome.kind, result.kind === 'json' ? result.usage : undefined);
  learnFromAttempt(env.learning, pick, outcome, result, startedAt, clock.now());
  // The attempt's slot is free again: one waiter may take it (all wake on circuit changes).
  if (result.kind === 'stream') void result.done.then(() => env.wakeup.notify(1));
  else env.wakeup.notify(1);
  return result;
}

/** The client's answer after an attempt, or undefined to go on (a failed target is excluded until the next wait). */
export function answerOf(
  env: PickEnv,
  pick: Pick,
  result: AttemptResult,
  state: RequestState,
): RouteResult | undefined {
  const { target } = pick;
  if (result.kind === 'unsent') return untranslatable(target.provider, result.message, state.attempts);
  if (result.kind !== 'failed') {
    env.learning.meter.served(target.id);
    if (env.affinity && state.prefixes.length > 0)
      env.affinity.remember(prefixesToRemember(state.prefixes), target.id, env.attempt.clock.now());
    return answered(target, result, state.attempts);
  }
  const { outcome } = result;
  if (outcome.kind === 'client_error') return upstreamRejected(outcome.status, outcome.message, state.attempts);
  if (outcome.kind !== 'aborted') (state.excluded ??= new Set()).add(target.id);
  return undefined;
}
