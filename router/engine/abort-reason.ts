/**
 * Why an attempt's own cancellation fired, read once its send or read throws: its timer ran out,
 * the client went away, or the answers being read at once outgrew their shared bound.
 */
export const AbortReason = {
  TIMEOUT: Symbol('attempt-timeout'),
  CLIENT_GONE: Symbol('client-gone'),
  OVER_BUDGET: Symbol('over-buffer-budget'),
} as const;
