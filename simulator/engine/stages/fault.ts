import type { LimitView } from '../../quota/quota-set.js';
import type { FaultSpec } from '../../scenario/schema.js';
import type { FaultBook } from '../fault-book.js';
import { refuse, type Faulted, type Parsed, type Refused } from './attempt.js';
import { statusFaultError } from './status-fault-error.js';

/**
 * Applies the faults scheduled for this request: a forced status refuses it here; latency and
 * the faults that shape an answer (hang, reset, malformed, stream break…) travel on in the
 * decision for the answer stage.
 */
export function applyFaults(attempt: Parsed, book: FaultBook): Refused | Faulted {
  const { provider, owner, chat } = attempt;
  const decision = book.decide(
    { providerId: provider.id, keyId: owner.keyId, model: chat.model, stream: chat.stream },
    attempt.ctx.now,
  );
  attempt.faults = decision.ids;
  attempt.decision = decision;
  const fault = decision.response?.spec;
  if (fault?.kind === 'status') return forceStatus(attempt, fault);
  return attempt as Faulted;
}

function forceStatus(attempt: Parsed, fault: FaultSpec & { kind: 'status' }): Refused {
  const { provider, owner, chat } = attempt;
  const now = attempt.ctx.now;
  const views = provider.quota.view(provider.quota.bucketsFor(owner, chat.model, now), now);
  const spec = statusFaultError(fault, provider, now);
  // A forced rate limit in the vendor's own form (or in its reset headers) reads as a real one
  // on the provider's shortest limit, shown spent until the wait ends: a 429 beside "4998
  // remaining" is no vendor's. An explicit Retry-After form carries the wait alone, beside the
  // quota as it is (so a lying Retry-After lies alone).
  const form = spec.hint?.form;
  const target =
    spec.kind === 'rate_limited' && (form === 'vendor' || form === 'reset-header') ? shortestLimit(views) : undefined;
  if (!target) return refuse(attempt, spec, views);
  const rule = target.rule;
  spec.violation = { rule, metric: rule.metric, limit: target.limit, used: target.limit, requested: 1 };
  const waitMs = Math.max(target.resetInMs, Math.max(0, spec.hint!.ms));
  const shown = views.map((v) => (v === target ? { ...v, remaining: 0, resetInMs: waitMs } : v));
  return refuse(attempt, spec, views, shown);
}

/** The limit a forced 429 pretends to hit: the shortest window, requests before tokens on a tie. */
function shortestLimit(views: LimitView[]): LimitView | undefined {
  let target: LimitView | undefined;
  for (const v of views) {
    const m = v.rule.metric;
    if (m !== 'requests' && m !== 'tokens' && m !== 'input-tokens') continue;
    if (
      !target ||
      v.rule.windowMs < target.rule.windowMs ||
      (v.rule.windowMs === target.rule.windowMs && m === 'requests' && target.rule.metric !== 'requests')
    )
      target = v;
  }
  return target;
}
