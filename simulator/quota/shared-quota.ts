import type { Caller, Costs, LimitView, QuotaRule } from './quota-rule.js';
import { QuotaSet, type AdmitResult, type Bucket, type QuotaTicket } from './quota-set.js';
import {
  longestWindowMs,
  planAdmission,
  planSettle,
  readAdmission,
  readLoss,
  type ScriptCall,
  type SharedProvider,
} from './shared-plan.js';

/** Where the quota script runs: one atomic round trip per call (Redis EVALSHA in production). */
export interface QuotaScriptRunner {
  run(call: ScriptCall): Promise<readonly unknown[]>;
  /** Runs a call whose answer nobody waits for (a charge after the fact); failures are reported, not thrown. */
  fire(call: ScriptCall): void;
}

/** A decision taken: what the quota stage asks of a gate, answered from it. */
export interface DecidedGate {
  admit(caller: Caller, model: string, costs: Costs, now: number): AdmitResult;
  chargeRejected(buckets: Bucket[], now: number): void;
  view(buckets: Bucket[], now: number): LimitView[];
  waitFor(buckets: readonly Bucket[], costs: Costs, now: number): number;
  /** Decided by this worker alone, from its share of each limit, because the script did not run. */
  readonly degraded: boolean;
}

/** A time the shared engine did not answer and each worker decided alone (epoch ms; `to` absent while it lasts). */
export interface DegradedWindow {
  from: number;
  to?: number;
  /** The first failure's message. */
  reason: string;
  /** Set when Redis answered but had lost the shared counters (restarted empty, flushed). */
  code?: 'SIM_QUOTA_STATE_LOST';
}

/** What a worker does while the quota script cannot run (Redis down, paused, too slow). */
export interface SharedQuotaFallback {
  /** Workers sharing the limits: alone, each enforces 1/share of every limit (at least 1). */
  share: number;
  /** Told when a degraded window opens (`to` absent) and when it closes. */
  onWindow?: (window: DegradedWindow) => void;
}

/** A provider's rules with each limit cut to one worker's share. */
export function shareOfRules(rules: readonly QuotaRule[], share: number): QuotaRule[] {
  return rules.map((r) => ({ ...r, limit: Math.max(1, Math.floor(r.limit / share)) }));
}

// Views and waits of frozen buckets read only the buckets: a QuotaSet with no rules computes them.
const READER = new QuotaSet([]);

/**
 * Quotas shared by every worker: each admission is one call of the quota script, which decides
 * all-or-nothing across the request's buckets in one place, so a limit holds exactly however
 * many processes serve it. Simulated time stays single-process: this engine runs on wall time.
 */
export class SharedQuota {
  constructor(
    private readonly runner: QuotaScriptRunner,
    /** Keeps runs apart on one Redis. */
    private readonly prefix: string,
    /** Decide alone while the script fails; without it, a failure reaches the caller (a 500). */
    private readonly fallback?: SharedQuotaFallback,
  ) {}

  private readonly local = new Map<string, QuotaSet>();
  private open: DegradedWindow | undefined;
  /** Per hash tag whose counters Redis lost: the window this worker decides it alone, until its end. */
  private readonly lost = new Map<string, { window: DegradedWindow; until: number }>();
  /** Every degraded window so far, the open one last. */
  readonly windows: DegradedWindow[] = [];

  private async run(plan: ReturnType<typeof planAdmission>, now: number): Promise<readonly unknown[] | undefined> {
    try {
      const reply = await this.runner.run(plan.call);
      if (this.open) {
        this.open.to = now;
        this.fallback?.onWindow?.(this.open);
        this.open = undefined;
      }
      return reply;
    } catch (error) {
      if (!this.fallback) throw error;
      if (!this.open) {
        this.open = { from: now, reason: (error as Error).message };
        this.windows.push(this.open);
        this.fallback.onWindow?.(this.open);
      }
      return undefined;
    }
  }

  /**
   * This worker's own share of a provider's limits, kept for as long as the process lives. It
   * mirrors what the worker admits through Redis too, so that deciding alone starts from what
   * this worker took in the current windows rather than from a full share.
   */
  private localGate(provider: SharedProvider): QuotaSet {
    let set = this.local.get(provider.id);
    if (!set) this.local.set(provider.id, (set = new QuotaSet(shareOfRules(provider.rules, this.fallback!.share))));
    return set;
  }

  /** Decides one admission in one round trip; the gate answers the quota stage from the decision. */
  async decide(
    provider: SharedProvider,
    caller: Caller,
    model: string,
    costs: Costs,
    now: number,
  ): Promise<DecidedGate> {
    const plan = planAdmission(this.prefix, provider, caller, model, costs, now, this.fallback !== undefined);
    if (plan.applicable.length === 0) return this.sharedGate(provider, caller, model, plan, [1], now);
    const lost = this.lost.get(plan.tag);
    if (lost && now < lost.until) return this.aloneGate(provider, caller, plan);
    const reply = await this.run(plan, now);
    if (!reply) return this.aloneGate(provider, caller);
    const lostAt = readLoss(reply, now, longestWindowMs(provider.rules));
    if (lostAt !== undefined) {
      this.onLost(plan.tag, lostAt, lostAt + longestWindowMs(provider.rules));
      return this.aloneGate(provider, caller, plan);
    }
    if (lost) {
      lost.window.to = now;
      this.fallback?.onWindow?.(lost.window);
      this.lost.delete(plan.tag);
    }
    return this.sharedGate(provider, caller, model, plan, reply, now);
  }

  private onLost(tag: string, at: number, until: number): void {
    const known = this.lost.get(tag);
    if (known && known.window.from === at) return void (known.until = until);
    if (known) known.window.to = at;
    const window: DegradedWindow = {
      from: at,
      reason: `SIM_QUOTA_STATE_LOST: Redis lost the shared quota state of ${tag} at ${new Date(at).toISOString()}`,
      code: 'SIM_QUOTA_STATE_LOST',
    };
    this.windows.push(window);
    this.lost.set(tag, { window, until });
    this.fallback?.onWindow?.(window);
  }

  /**
   * Decides alone from this worker's share. While the shared state is lost (`plan` given), what it
   * admits is also charged to Redis unawaited, so that Redis holds every admission since the loss
   * by the time it decides again.
   */
  private aloneGate(provider: SharedProvider, caller: Caller, plan?: ReturnType<typeof planAdmission>): DecidedGate {
    const local = this.localGate(provider);
    const charge = (costs: Partial<Costs>, at: number) => {
      // A concurrency slot taken here is released here: Redis never sees it.
      const settle =
        plan && planSettle(this.prefix, provider, caller, plan.applicable, { ...costs, concurrency: 0 }, at);
      if (settle) this.runner.fire(settle);
    };
    const gate = {
      view: (buckets: Bucket[], at: number) => local.view(buckets, at),
      settle: (ticket: QuotaTicket, c: Partial<Costs>, at: number) => (local.settle(ticket, c, at), charge(c, at)),
    };
    return {
      admit(c, m, k, at) {
        const result = local.admit(c, m, k, at);
        if (!result.ok || !plan) return result;
        charge(k, at);
        return { ok: true, ticket: { buckets: result.ticket.buckets, gate } };
      },
      chargeRejected: (...a) => local.chargeRejected(...a),
      view: (...a) => local.view(...a),
      waitFor: (...a) => local.waitFor(...a),
      degraded: true,
    };
  }

  /** Answers from the script's decision, mirrored into this worker's share when there is one. */
  private sharedGate(
    provider: SharedProvider,
    caller: Caller,
    model: string,
    plan: ReturnType<typeof planAdmission>,
    reply: readonly unknown[],
    now: number,
  ): DecidedGate {
    const local = this.fallback && this.localGate(provider);
    const mirror = local && { buckets: local.bucketsFor(caller, model, now), gate: local };
    const gate = {
      view: (buckets: Bucket[], at: number) => READER.view(buckets, at),
      settle: (_ticket: QuotaTicket, charge: Partial<Costs>, at: number) => {
        if (mirror) local.settle(mirror, charge, at);
        const settle = planSettle(this.prefix, provider, caller, plan.applicable, charge, at);
        if (settle) this.runner.fire(settle);
      },
    };
    const result = readAdmission(plan, reply, gate);
    if (mirror && result.ok) local.settle(mirror, plan.costs, now);
    else if (mirror && provider.countRejected) local.chargeRejected(mirror.buckets, now);
    return {
      admit: () => result,
      chargeRejected: () => {}, // the script charged it with the decision
      view: gate.view,
      waitFor: (buckets, c, at) => READER.waitFor(buckets, c, at),
      degraded: false,
    };
  }
}
