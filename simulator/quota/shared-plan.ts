import { applicableRules, type ApplicableRule } from './applicable-rules.js';
import { frozenMeter } from './frozen-meter.js';
import type { Meter } from './meter.js';
import { outranks } from './outranks.js';
import type { Caller, Costs, QuotaRule, QuotaViolation } from './quota-rule.js';
import type { AdmitResult, Bucket, TicketGate } from './quota-set.js';

/** The keys and arguments of one call of the quota script (quota-script.ts). */
export interface ScriptCall {
  keys: string[];
  args: string[];
}

/** One provider's limits as the shared engine names them. */
export interface SharedProvider {
  id: string;
  rules: readonly QuotaRule[];
  /** Charge a refused request to the requests limits (OpenAI counts failed requests). */
  countRejected: boolean;
}

/** A planned admission: the script call and the buckets it decides. */
export interface AdmissionPlan {
  call: ScriptCall;
  applicable: ApplicableRule[];
  costs: Costs;
}

const KIND = { 'token-bucket': 't', 'fixed-window': 'f', 'sliding-window': 's' } as const;

// A limit charged after the fact (output tokens) still refuses new work while in debt.
const needOf = (rule: QuotaRule, cost: number) => (cost > 0 ? cost : rule.metric === 'output-tokens' ? 1 : 0);

/**
 * The hash tag every bucket of `caller` at `provider` shares, so that one script's keys sit in
 * one Redis Cluster slot: the widest scope among the provider's rules (the provider, the org, or
 * the key) is the unit a cluster shards by.
 */
export function hashTag(prefix: string, provider: SharedProvider, caller: Caller): string {
  const scopes = new Set(provider.rules.map((r) => r.scope));
  const unit = scopes.has('provider') ? '*' : scopes.has('org') ? `o:${caller.org}` : `k:${caller.keyId}`;
  return `{${prefix}:${provider.id}:${unit}}`;
}

function call(
  mode: 'a' | 's',
  prefix: string,
  provider: SharedProvider,
  caller: Caller,
  applicable: ApplicableRule[],
  cost: (rule: QuotaRule) => number,
  now: number,
): ScriptCall {
  const tag = hashTag(prefix, provider, caller);
  const keys: string[] = [];
  const args = [mode, String(now), provider.countRejected ? '1' : '0', String(applicable.length)];
  for (const { rule, index, scopeId, modelPart } of applicable) {
    const key = `${tag}:${index}:${scopeId}:${modelPart}`;
    keys.push(key, `${key}:log`);
    const kind = rule.metric === 'concurrency' ? 'c' : KIND[rule.algorithm];
    const start = rule.windowStart
      ? rule.windowStart(now)
      : rule.windowMs > 0
        ? Math.floor(now / rule.windowMs) * rule.windowMs
        : 0;
    const c = cost(rule);
    args.push(kind, String(rule.limit), String(rule.windowMs), rule.metric === 'requests' ? '1' : '0');
    args.push(String(c), String(needOf(rule, c)), String(start), String(start + rule.windowMs));
  }
  return { keys, args };
}

/** Plans one all-or-nothing admission of `costs` for `caller` and `model` at `now`. */
export function planAdmission(
  prefix: string,
  provider: SharedProvider,
  caller: Caller,
  model: string,
  costs: Costs,
  now: number,
): AdmissionPlan {
  const applicable = applicableRules(provider.rules, caller, model);
  return { call: call('a', prefix, provider, caller, applicable, (r) => costs[r.metric], now), applicable, costs };
}

/** Plans the charge after the fact (output tokens, the concurrency slot released) of an admission. */
export function planSettle(
  prefix: string,
  provider: SharedProvider,
  caller: Caller,
  applicable: ApplicableRule[],
  costs: Partial<Costs>,
  now: number,
): ScriptCall | undefined {
  if (!applicable.some((a) => costs[a.rule.metric])) return undefined;
  return call('s', prefix, provider, caller, applicable, (r) => costs[r.metric] ?? 0, now);
}

const num = (v: unknown) => (v === 'inf' ? Infinity : v === 'nan' ? Number.NaN : Number(v));

/**
 * Reads the script's answer to `plan` as QuotaSet.admit would have answered: the binding limit
 * when refused, and each bucket frozen as Redis left it.
 */
export function readAdmission(plan: AdmissionPlan, reply: readonly unknown[], gate: TicketGate): AdmitResult {
  const buckets: Bucket[] = [];
  let worst: QuotaViolation | undefined;
  plan.applicable.forEach(({ rule }, i) => {
    const [waitBefore, availableBefore, available, resetInMs, waitMs] = reply.slice(1 + i * 5, 6 + i * 5).map(num);
    buckets.push({ rule, meter: frozenMeter as Meter<unknown>, state: { available, resetInMs, waitMs } });
    const cost = plan.costs[rule.metric];
    if (needOf(rule, cost) === 0 || !(waitBefore! > 0 || Number.isNaN(waitBefore))) return;
    const violation: QuotaViolation = {
      rule,
      requested: cost,
      used: Math.max(0, Math.round(rule.limit - availableBefore!)),
      waitMs: waitBefore!,
      tooLarge: waitBefore === Infinity,
    };
    if (!worst || outranks(violation, worst)) worst = violation;
  });
  if (Number(reply[0]) === 1) return { ok: true, ticket: { buckets, gate } };
  return { ok: false, violation: worst!, buckets };
}
