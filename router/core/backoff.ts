import type { Rng } from './rng.js';

/** Exponential backoff settings. */
export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
}

/**
 * "Full jitter" exponential backoff: uniform in [base·2ⁿ/2, base·2ⁿ], capped. Half the interval
 * is kept as a floor so that a retry is never immediate, and the rest is spread to keep replicas
 * apart.
 * @see https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/
 */
export function backoffMs(attempt: number, options: BackoffOptions, rng: Rng): number {
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, attempt));
  return ceiling / 2 + rng.next() * (ceiling / 2);
}
