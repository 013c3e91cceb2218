import type { Costs, QuotaSet } from '../../quota/quota-set.js';
import type { ErrorSpec } from '../../vendors/types.js';
import type { ProviderRuntime } from '../provider-runtime.js';
import { refuse, type Admitted, type Faulted, type Refused } from './attempt.js';

/**
 * All the quota stage asks of a provider's limits: admit all-or-nothing, charge a refusal where
 * the vendor does, describe the limits, and say how long they would refuse the same request again.
 */
export type QuotaGate = Pick<QuotaSet, 'admit' | 'chargeRejected' | 'view' | 'waitFor'>;

/**
 * Charges the request to every limit that applies to its key and model, or refuses it with the
 * binding limit: 429 with the wait until it would fit, or "too large" when it never can.
 */
export function admit(attempt: Faulted, quota: QuotaGate = attempt.provider.quota): Refused | Admitted {
  const { provider, owner, chat } = attempt;
  const now = attempt.ctx.now;
  const costs = admissionCosts(attempt);
  const admission = quota.admit(owner, chat.model, costs, now);
  if (!admission.ok) {
    if (provider.accounting.countRejected) quota.chargeRejected(admission.buckets, now);
    const v = admission.violation;
    const spec: ErrorSpec = {
      kind: v.tooLarge ? 'request_too_large' : 'rate_limited',
      violation: { rule: v.rule, metric: v.rule.metric, limit: v.rule.limit, used: v.used, requested: v.requested },
      hint: v.tooLarge || Number.isNaN(v.waitMs) ? undefined : { ms: v.waitMs, form: 'vendor' },
      scope: v.rule.scope,
    };
    return refuse(attempt, spec, quota.view(admission.buckets, now));
  }
  attempt.emptyForMs = quota.waitFor(admission.ticket.buckets, costs, now);
  attempt.costs = costs;
  attempt.ticket = admission.ticket;
  return attempt as Admitted;
}

/** What `attempt` takes at admission, before the answer. */
export function admissionCosts(attempt: Faulted): Costs {
  return costsOf(attempt.provider.accounting, attempt.chat.maxTokens, attempt.tokensIn - attempt.uncounted);
}

/** What a request takes at admission: one request, and tokens as the vendor charges them before the answer. */
function costsOf(accounting: ProviderRuntime['accounting'], maxTokens: number | undefined, input: number): Costs {
  const max = maxTokens ?? 0;
  const rule = accounting.tokenAdmission;
  const tokens = rule === 'input' ? input : rule === 'input+max_tokens' ? input + max : Math.max(input, max);
  return { requests: 1, tokens, 'input-tokens': input, 'output-tokens': 0, concurrency: 1 };
}
