import type { QuotaViolation } from './quota-rule.js';

// A request that can never fit outranks an unknown wait, which outranks a longer known wait.
function rank(v: QuotaViolation): number {
  if (v.tooLarge) return Number.MAX_VALUE;
  if (Number.isNaN(v.waitMs)) return Number.MAX_VALUE / 2;
  return v.waitMs;
}

/** Whether refusal `a` binds harder than `b`: the one a 429 names when several limits refuse. */
export function outranks(a: QuotaViolation, b: QuotaViolation): boolean {
  return rank(a) > rank(b);
}
