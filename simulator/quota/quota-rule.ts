import type { LimitSpec, Metric } from './meter.js';

/** Who shares a bucket: each key, each organisation (project) of keys, or the whole provider. */
export type QuotaScope = 'key' | 'org' | 'provider';

/** A limit as configured for one provider. */
export interface QuotaRule extends LimitSpec {
  /** Stable label, e.g. `requests/1m`, used in 429 bodies, headers and the ledger. */
  id: string;
  scope: QuotaScope;
  /** Restricts the rule to one model; otherwise it applies to every model. */
  model?: string;
  /** One bucket across all models instead of one per model. */
  sharedModels: boolean;
}

/** The caller a request is charged to. */
export interface Caller {
  keyId: string;
  org: string;
}

/** Units a request takes at admission, per metric. */
export type Costs = Record<Metric, number>;

/** A limit as a response header would describe it. */
export interface LimitView {
  rule: QuotaRule;
  limit: number;
  /** Whole units left, never negative. */
  remaining: number;
  /** Milliseconds until the limit is back to full. */
  resetInMs: number;
  /** A verbatim reset value that replaces the formatted one (lying hints). */
  rawReset?: string;
}

/** A refused admission: the binding limit and how long until the request would fit. */
export interface QuotaViolation {
  rule: QuotaRule;
  requested: number;
  used: number;
  /** Milliseconds until the request could be admitted; Infinity when it can never fit; NaN when unknown. */
  waitMs: number;
  tooLarge: boolean;
}
