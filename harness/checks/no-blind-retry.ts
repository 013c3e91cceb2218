import type { LedgerRow } from '../../simulator/index.js';
import { attemptsByRequest } from './attempts-by-request.js';
import { count, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

/** A failure that announced no wait: an error status, a dead connection, or an answer that did not complete (cut, reset, abandoned). */
function hintless(r: LedgerRow): boolean {
  if (r.hintMs !== null && r.hintMs > 0) return false;
  if (r.end === 'pending') return false;
  return r.status === 0 || r.status >= 500 || r.status === 429 || (r.status === 200 && r.end !== 'complete');
}

/**
 * After a failure that announced no wait (a 5xx, a hint-less 429, a reset, a hang, a stream cut
 * short, an attempt the router abandoned), the same
 * request did not come back to the same provider sooner than the backoff floor (50 ms by default).
 * Judged per request, so that independent traffic arriving meanwhile is not mistaken for a retry.
 */
export function checkNoBlindRetry({ rows, scenario }: CheckInput): CheckResult {
  const floor = scenario.expect.noBlindRetry.floor;
  const evidence: Evidence[] = [];
  let violations = 0;
  let failures = 0;
  let smallest = Infinity;
  for (const list of attemptsByRequest(rows).lists()) {
    for (let i = 0; i < list.length; i++) {
      const f = list[i]!;
      if (!hintless(f)) continue;
      failures++;
      const next = list.slice(i + 1).find((r) => r.provider === f.provider);
      if (!next) continue;
      const failedAt = f.endAt ?? f.firstByteAt ?? f.arrivalAt;
      const gap = next.arrivalAt - failedAt;
      smallest = Math.min(smallest, gap);
      if (gap < floor) {
        violations++;
        if (evidence.length < MAX_EVIDENCE)
          evidence.push({
            at: next.arrivalAt,
            correlationId: f.correlationId,
            provider: f.provider,
            key: next.key,
            model: next.model,
            detail: `retried ${Math.round(gap)} ms after a hint-less ${f.status === 0 ? f.end : f.status}`,
          });
      }
    }
  }
  return {
    id: 'no-blind-retry',
    title: 'No blind retries',
    meaning: 'After a failure without a wait hint, the router backed off before trying the same provider again.',
    verdict: violations > 0 ? 'fail' : failures === 0 ? 'skip' : 'pass',
    ...(failures === 0 ? { reason: 'no attempt failed without a wait hint' } : {}),
    figure:
      failures === 0
        ? 'no hint-less failures'
        : Number.isFinite(smallest)
          ? `smallest gap ${Math.round(smallest)} ms after ${count(failures, 'hint-less failure')}${violations ? `; ${violations} of ${failures} (${((violations / failures) * 100).toFixed(1)} %) retried under the floor` : ''}`
          : `${count(failures, 'hint-less failure')}, never retried on the same provider`,
    value: Number.isFinite(smallest) ? smallest : null,
    unit: 'ms',
    threshold: `floor ${floor} ms`,
    violations,
    evidence,
  };
}
