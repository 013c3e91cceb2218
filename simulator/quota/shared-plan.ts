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
  /** The hash tag its keys share: the unit whose state is lost or kept as one. */
  tag: string;
}

/** How long an epoch marker lives without a decision renewing it, beyond the longest window (ms). */
const EPOCH_DAY_MS = 86_400_000;

/** The epoch marker of a hash tag: present while Redis still holds the tag's counters. */
export const epochKey = (tag: string): string => `${tag}:epoch`;

/** The longest window among `rules` (ms): how long a lost state can still matter. */
export function longestWindowMs(rules: readonly QuotaRule[]): number {
  return rules.reduce((max, r) => Math.max(max, r.windowMs), 0);
}

/** One epoch marker as the primary writes it when a group starts. */
export interface EpochMarker {
  key: string;
  value: string;
  ttlMs: number;
}

/**
 * The epoch markers of every hash tag `callers` of `provider` use, written when a group starts:
 * the quota script decides only while the marker of its tag is there (quota-script.ts).
 */
export function planEpochMarkers(
  prefix: string,
  provider: SharedProvider,
  callers: readonly Caller[],
  now: number,
): EpochMarker[] {
  const tags = new Set(callers.map((c) => hashTag(prefix, provider, c)));
  const ttlMs = EPOCH_DAY_MS + longestWindowMs(provider.rules);
  return [...tags].map((tag) => ({ key: epochKey(tag), value: `e:${now + EPOCH_DAY_MS / 2}`, ttlMs }));
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
  tag: string,
  provider: SharedProvider,
  applicable: ApplicableRule[],
  cost: (rule: QuotaRule) => number,
  now: number,
  epoch = false,
): ScriptCall {
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
  if (epoch) {
    keys.push(epochKey(tag));
    args.push(String(longestWindowMs(provider.rules)));
  }
  return { keys, args };
}

/**
 * Plans one all-or-nothing admission of `costs` for `caller` and `model` at `now`; with `epoch`,
 * the script first checks the tag's epoch marker and answers "lost" instead when it is gone.
 */
export function planAdmission(
  prefix: string,
  provider: SharedProvider,
  caller: Caller,
  model: string,
  costs: Costs,
  now: number,
  epoch = false,
): AdmissionPlan {
  const applicable = applicableRules(provider.rules, caller, model);
  const tag = hashTag(prefix, provider, caller);
  return { call: call('a', tag, provider, applicable, (r) => costs[r.metric], now, epoch), applicable, costs, tag };
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
  return call('s', hashTag(prefix, provider, caller), provider, applicable, (r) => costs[r.metric] ?? 0, now);
}

// Clocks of workers on other hosts may run this far ahead of this one.
const CLOCK_SKEW_MS = 60_000;

/**
 * When the quota state of a call's tag was lost, if the script answered so (`['lost', at]`),
 * else undefined. A time from Redis is untrusted: one that is not a number, or lies in the future
 * or before the longest window, is read as the nearest time that makes sense.
 */
export function readLoss(reply: readonly unknown[], now: number, windowMs: number): number | undefined {
  if (reply[0] !== 'lost') return undefined;
  const at = Number(reply[1]);
  if (!Number.isFinite(at)) return now;
  return Math.min(Math.max(at, now - windowMs), now + CLOCK_SKEW_MS);
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
