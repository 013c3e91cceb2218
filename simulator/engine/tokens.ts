/**
 * Estimates prompt tokens as vendors' pre-flight counters do: about four characters per token
 * plus three per message for role framing. Deterministic, so quotas charge the same every run.
 */
export function estimateTokens(text: string, messageCount: number): number {
  return Math.ceil(text.length / 4) + 3 * messageCount;
}
