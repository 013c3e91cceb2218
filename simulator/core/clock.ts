import type { AbortLike } from './cancel.js';

/** A source of time: epoch milliseconds (fractional) and an abortable sleep. */
export interface Clock {
  /** Current time in epoch milliseconds; may carry a fractional part. */
  now(): number;
  /**
   * Resolves after `ms`; rejects with its reason when `signal` aborts first. `signal` may be a
   * `Cancel` rather than an AbortSignal (the in-process transport's hang-up is one): a clock
   * that hands it to a Node or Web API must follow it with an AbortController of its own.
   */
  sleep(ms: number, signal?: AbortLike): Promise<void>;
}
