import type { SharedQuota } from '../quota/shared-quota.js';
import type { SimRequest } from '../vendors/types.js';
import type { Engine } from './engine.js';
import type { Reply } from './reply.js';
import { admissionCosts } from './stages/quota.js';

/**
 * Answers one request with its quota decided by `shared`: the stages before the quota run here,
 * the admission is one round trip, and the answer is played from the decision. Requests that
 * reach no quota (refusals, the model list) are answered at once, as `Engine.handle` would.
 */
export function serveShared(
  engine: Engine,
  shared: SharedQuota,
  req: SimRequest,
  now: number,
  bodyTooLarge: boolean,
): Reply | Promise<Reply> {
  const begun = engine.begin(req, now, bodyTooLarge);
  if ('steps' in begun) return begun;
  const { provider } = begun;
  const limits = { id: provider.id, rules: provider.quota.rules, countRejected: provider.accounting.countRejected };
  return shared.decide(limits, begun.owner, begun.chat.model, admissionCosts(begun), now).then((gate) => {
    begun.degraded = gate.degraded;
    return engine.finish(begun, gate);
  });
}
