import { cachePolicyFor } from '../prompt-cache.js';
import { promptSegments } from '../prompt-segments.js';
import type { Admitted, Faulted } from './attempt.js';

/**
 * Looks the prompt up in the provider's prompt cache before the quotas see it (where the vendor
 * does not count cache reads toward input limits, they take that much less), writing nothing:
 * a refused request caches nothing. Never refuses.
 */
export function lookUpCache(attempt: Faulted): Faulted {
  const { provider, profile, chat } = attempt;
  const policy = cachePolicyFor(profile.id, chat.model, provider.options);
  if (!policy) return attempt;
  const lookup = provider.cache.lookup(
    attempt.owner.org,
    chat.model,
    promptSegments(profile.id, attempt.route.api, attempt.body),
    attempt.tokensIn,
    policy,
    attempt.ctx.now,
  );
  attempt.lookup = lookup;
  attempt.uncounted = policy.readsCountTowardLimits ? 0 : lookup.read;
  return attempt;
}

/** Writes what an admitted request's prompt leaves in the cache, and keeps it for the answer and the ledger. */
export function commitCache(attempt: Admitted): void {
  const { lookup } = attempt;
  if (!lookup) return;
  attempt.provider.cache.commit(lookup, attempt.ctx.now);
  attempt.cache = lookup;
}
