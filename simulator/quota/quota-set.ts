import { concurrency } from './concurrency.js';
import { fixedWindow } from './fixed-window.js';
import type { Algorithm, Meter } from './meter.js';
import type { Caller, Costs, LimitView, QuotaRule, QuotaViolation } from './quota-rule.js';
import { slidingWindow } from './sliding-window.js';
import { tokenBucket } from './token-bucket.js';
import { applicableRules } from './applicable-rules.js';
import { outranks } from './outranks.js';

export type { Caller, Costs, LimitView, QuotaRule, QuotaViolation } from './quota-rule.js';

/** One live limit: its rule, the arithmetic that meters it, and its state. */
export interface Bucket {
  rule: QuotaRule;
  meter: Meter<unknown>;
  state: unknown;
}

/** Where a ticket's limits live: described and settled there when the answer ends. */
export interface TicketGate {
  view(buckets: Bucket[], now: number): LimitView[];
  settle(ticket: QuotaTicket, costs: Partial<Costs>, now: number): void;
}

/** What an admitted request holds until it ends. */
export interface QuotaTicket {
  buckets: Bucket[];
  gate: TicketGate;
}

export type AdmitResult =
  { ok: true; ticket: QuotaTicket } | { ok: false; violation: QuotaViolation; buckets: Bucket[] };

const METERS: Record<Algorithm | 'concurrency', Meter<unknown>> = {
  'token-bucket': tokenBucket as Meter<unknown>,
  'fixed-window': fixedWindow as Meter<unknown>,
  'sliding-window': slidingWindow as Meter<unknown>,
  concurrency: concurrency as Meter<unknown>,
};

/** The live quota state of one provider: buckets created on first use, keyed by scope and model. */
export class QuotaSet implements TicketGate {
  readonly rules: readonly QuotaRule[];
  private readonly buckets = new Map<string, Bucket>();
  // Buckets per key and model: the key fixes the org, and buckets are never dropped.
  private readonly resolved = new Map<string, Map<string, Bucket[]>>();

  constructor(rules: readonly QuotaRule[]) {
    this.rules = rules;
  }

  /** The buckets that apply to `caller` and `model`, created full at `now` when first seen. */
  bucketsFor(caller: Caller, model: string, now: number): Bucket[] {
    let byModel = this.resolved.get(caller.keyId);
    if (!byModel) {
      byModel = new Map();
      this.resolved.set(caller.keyId, byModel);
    }
    let found = byModel.get(model);
    if (!found) {
      found = this.resolve(caller, model, now);
      byModel.set(model, found);
    }
    return found;
  }

  private resolve(caller: Caller, model: string, now: number): Bucket[] {
    const out: Bucket[] = [];
    for (const { rule, index, scopeId, modelPart } of applicableRules(this.rules, caller, model)) {
      const key = `${index}\u0000${scopeId}\u0000${modelPart}`;
      let bucket = this.buckets.get(key);
      if (!bucket) {
        const meter = METERS[rule.metric === 'concurrency' ? 'concurrency' : rule.algorithm];
        bucket = { rule, meter, state: meter.create(rule, now) };
        this.buckets.set(key, bucket);
      }
      out.push(bucket);
    }
    return out;
  }

  /**
   * Admits a request all-or-nothing: every applicable limit must have room for its cost, and only
   * then is anything taken. Being synchronous, concurrent requests can never overshoot a limit.
   */
  admit(caller: Caller, model: string, costs: Costs, now: number): AdmitResult {
    const buckets = this.bucketsFor(caller, model, now);
    let worst: QuotaViolation | undefined;
    for (const b of buckets) {
      const cost = costs[b.rule.metric];
      // A limit charged after the fact (output tokens) still refuses new work while in debt.
      const need = cost > 0 ? cost : b.rule.metric === 'output-tokens' ? 1 : 0;
      if (need === 0) continue;
      const wait = b.meter.waitMs(b.state, b.rule, need, now);
      if (wait > 0 || Number.isNaN(wait)) {
        const violation: QuotaViolation = {
          rule: b.rule,
          requested: cost,
          used: Math.max(0, Math.round(b.rule.limit - b.meter.available(b.state, b.rule, now))),
          waitMs: wait,
          tooLarge: wait === Infinity,
        };
        if (!worst || outranks(violation, worst)) worst = violation;
      }
    }
    if (worst) return { ok: false, violation: worst, buckets };
    for (const b of buckets) {
      const cost = costs[b.rule.metric];
      if (cost !== 0) b.meter.consume(b.state, b.rule, cost, now);
    }
    return { ok: true, ticket: { buckets, gate: this } };
  }

  /**
   * How long these buckets would refuse another request with the same costs (0 if one would fit
   * now): the ground truth of "no capacity" even when a router avoids the 429 by reading headers.
   * Concurrency, which frees on completion rather than with time, is left out.
   */
  waitFor(buckets: readonly Bucket[], costs: Costs, now: number): number {
    let wait = 0;
    for (const b of buckets) {
      if (b.rule.metric === 'concurrency') continue;
      const cost = costs[b.rule.metric];
      const need = cost > 0 ? cost : b.rule.metric === 'output-tokens' ? 1 : 0;
      if (need === 0) continue;
      const w = b.meter.waitMs(b.state, b.rule, need, now);
      if (Number.isFinite(w) && w > wait) wait = w;
    }
    return wait;
  }

  /** Charges `costs` to the ticket's buckets after the fact (output tokens, concurrency release). */
  settle(ticket: QuotaTicket, costs: Partial<Costs>, now: number): void {
    for (const b of ticket.buckets) {
      const cost = costs[b.rule.metric];
      if (cost) b.meter.consume(b.state, b.rule, cost, now);
    }
  }

  /** Charges a refused request where the vendor counts failed requests too (OpenAI). */
  chargeRejected(buckets: Bucket[], now: number): void {
    for (const b of buckets) {
      if (b.rule.metric !== 'requests') continue;
      if (b.meter.available(b.state, b.rule, now) >= 1) b.meter.consume(b.state, b.rule, 1, now);
    }
  }

  /** Describes each bucket as a rate-limit header would. */
  view(buckets: Bucket[], now: number): LimitView[] {
    return buckets.map((b) => ({
      rule: b.rule,
      limit: b.rule.limit,
      remaining: Math.max(0, Math.floor(b.meter.available(b.state, b.rule, now))),
      resetInMs: Math.max(0, b.meter.resetInMs(b.state, b.rule, now)),
    }));
  }

  /** Every bucket created so far, for the control API. */
  snapshot(now: number): Array<{ bucket: string; view: LimitView }> {
    return [...this.buckets].map(([key, b]) => ({
      bucket: key.split('\u0000').slice(1).join('/'),
      view: this.view([b], now)[0]!,
    }));
  }
}
