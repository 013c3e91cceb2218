/** What a response said about one limit. */
export interface LimitSignal {
  limit?: number;
  remaining?: number;
  /** Epoch ms when the limit is back to full (or its window resets). */
  resetAt?: number;
}

/** Where a wait hint came from. */
export type WaitSource =
  | 'retry-after-ms'
  | 'x-ms-retry-after-ms'
  | 'retry-after'
  | 'retry-after-date'
  | 'body'
  | 'message'
  | 'reset-header'
  | 'ratelimit';

/** Everything a response said about waiting and capacity, decoded from any vendor's form. */
export interface Signals {
  /** An explicit wait, in ms from now; absent when none was given or it was unparseable or negative. */
  waitMs?: number;
  waitSource?: WaitSource;
  /** `x-should-retry`, when sent. */
  shouldRetry?: boolean;
  requests?: LimitSignal;
  tokens?: LimitSignal;
  /** How the vendor's limits replenish, which decides how the remaining count grows. */
  refill: 'continuous' | 'window' | 'unknown';
  /** The response says the quota is gone for hours (billing, spend cap, daily quota). */
  quotaExhausted?: boolean;
  /** The response body says the service is overloaded (e.g. a 500 whose body is "Overloaded"). */
  overloaded?: boolean;
}

/** A header lookup that tolerates case and repeated fields. */
export type HeaderGetter = (name: string) => string | undefined;

/** Builds a getter over undici/node style headers. */
export function headerGetter(headers: Record<string, string | string[] | undefined>): HeaderGetter {
  return (name) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
}
