import type { LedgerRow } from './ledger-row.js';

/** A run of attempts decided without the shared quota engine (see `LedgerRow.degraded`). */
export interface DegradedSpan {
  /** Arrival of the first and of the last attempt of the span (epoch ms). */
  from: number;
  to: number;
  attempts: number;
}

/**
 * The spans of degraded attempts in `rows` (in arrival order, as a ledger keeps them): each
 * span runs from a marked attempt to the last marked one before an unmarked attempt, so that a
 * report's degraded window is what the attempts say, not when a worker noticed Redis was gone.
 */
export function degradedSpans(rows: Iterable<Pick<LedgerRow, 'arrivalAt' | 'degraded'>>): DegradedSpan[] {
  const spans: DegradedSpan[] = [];
  let open: DegradedSpan | undefined;
  for (const row of rows) {
    if (!row.degraded) {
      open = undefined;
      continue;
    }
    if (open) {
      open.to = Math.max(open.to, row.arrivalAt);
      open.attempts++;
    } else spans.push((open = { from: row.arrivalAt, to: row.arrivalAt, attempts: 1 }));
  }
  return spans;
}
