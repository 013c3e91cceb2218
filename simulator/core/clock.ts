import type { AbortLike } from './cancel.js';

/** A source of time: epoch milliseconds (fractional) and an abortable sleep. */
export interface Clock {
  /** Current time in epoch milliseconds; may carry a fractional part. */
  now(): number;
  /** Resolves after `ms`; rejects with its reason when `signal` (an AbortSignal or a `Cancel`) aborts first. */
  sleep(ms: number, signal?: AbortLike): Promise<void>;
}
