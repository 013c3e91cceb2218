import { createRng } from '../../simulator/core/rng.js';
import type { LimitView, QuotaRule } from '../../simulator/quota/quota-set.js';
import type { EncodeContext } from '../../simulator/vendors/types.js';

/** An encode context with fixed time and ids, for golden tests of vendor encoders. */
export function encodeContext(over: Partial<EncodeContext> = {}): EncodeContext {
  return {
    now: Date.UTC(2025, 7, 21, 12, 40, 0),
    rng: createRng(1),
    requestId: '0123456789abcdef0123456789abcdef',
    providerId: 'p',
    org: 'acme',
    model: 'gpt-4o',
    options: {},
    ...over,
  };
}

/** A limit view as a QuotaSet would describe it. */
export function limitView(
  metric: QuotaRule['metric'],
  windowMs: number,
  limit: number,
  remaining: number,
  resetInMs: number,
): LimitView {
  const rule: QuotaRule = {
    id: `${metric}/${windowMs}`,
    metric,
    limit,
    windowMs,
    algorithm: 'token-bucket',
    scope: 'org',
    sharedModels: false,
  };
  return { rule, limit, remaining, resetInMs };
}
