import type { Caller, Costs, LimitView } from './quota-rule.js';
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
  ) {}

  /** Decides one admission in one round trip; the gate answers the quota stage from the decision. */
  async decide(
    provider: SharedProvider,
    caller: Caller,
    model: string,
    costs: Costs,
    now: number,
  ): Promise<DecidedGate> {
    const plan = planAdmission(this.prefix, provider, caller, model, costs, now);
    const reply = plan.applicable.length === 0 ? [1] : await this.runner.run(plan.call);
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
    };
  }
}
