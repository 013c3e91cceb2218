import type { Caller, Costs, LimitView, QuotaRule } from './quota-rule.js';
import { QuotaSet, type AdmitResult, type Bucket, type QuotaTicket } from './quota-set.js';
import { planAdmission, planSettle, readAdmission, type ScriptCall, type SharedProvider } from './shared-plan.js';

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

  /** This worker's own share of a provider's limits, kept for as long as the process lives. */
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
    const plan = planAdmission(this.prefix, provider, caller, model, costs, now);
    const reply = plan.applicable.length === 0 ? [1] : await this.run(plan, now);
    if (!reply) {
      const local = this.localGate(provider);
      return {
        admit: (...a) => local.admit(...a),
        chargeRejected: (...a) => local.chargeRejected(...a),
        view: (...a) => local.view(...a),
        waitFor: (...a) => local.waitFor(...a),
        degraded: true,
      };
    }
    const gate = {
      view: (buckets: Bucket[], at: number) => READER.view(buckets, at),
      settle: (_ticket: QuotaTicket, charge: Partial<Costs>, at: number) => {
        const settle = planSettle(this.prefix, provider, caller, plan.applicable, charge, at);
        if (settle) this.runner.fire(settle);
      },
    };
    const result = readAdmission(plan, reply, gate);
    return {
      admit: () => result,
      chargeRejected: () => {}, // the script charged it with the decision
      view: gate.view,
      waitFor: (buckets, c, at) => READER.waitFor(buckets, c, at),
      degraded: false,
    };
  }
}
