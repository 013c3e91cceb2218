import { attemptsByRequest } from './attempts-by-request.js';
import type { LedgerRow } from '../../simulator/index.js';
import { count, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

/** An attempt the provider carried out in full and billed: a complete answer with output tokens. */
function billedAnswer(r: LedgerRow): boolean {
  return r.status === 200 && r.end === 'complete' && r.tokensOut > 0;
}

/**
 * The providers do each answer's work once: per client request, upstream attempts that produced a
 * complete, billed answer beyond the one that could be served (hedges left running, a request
 * sent again after it succeeded, a stream retried after it completed). A hedge cancelled before
 * it finished billed no full answer and is not counted; a stream cut by a fault is not complete.
 */
export function checkDuplicateWork({ outcomes, rows }: CheckInput): CheckResult {
  const base = {
    id: 'duplicate-work' as const,
    title: 'No duplicate work',
    meaning: 'No client request made the providers produce and bill a complete answer more than once.',
    unit: 'attempts',
  };
  const attempts = attemptsByRequest(rows);
  const evidence: Evidence[] = [];
  let answered = 0;
  let duplicates = 0;
  let requests = 0;
  let tokensIn = 0;
  let tokensOut = 0;
  // How long after an earlier answer was complete the latest duplicate was sent: a hedge (sent
  // while the other still ran) is a duplicate whatever the lag; a re-send a few ms after an
  // answer a starved router had not yet read may be the harness's lag (see `discountHarnessLag`).
  let worstMarginMs = -Infinity;
  for (const o of outcomes) {
    const billed = (attempts.get(o.id) ?? []).filter(billedAnswer);
    if (billed.length === 0) continue;
    answered++;
    if (billed.length === 1) continue;
    requests++;
    duplicates += billed.length - 1;
    // The first answer is the one a router needed; the rest are the waste.
    for (let k = 1; k < billed.length; k++) {
      const r = billed[k]!;
      tokensIn += r.tokensIn;
      tokensOut += r.tokensOut;
      const ended = Math.max(...billed.slice(0, k).map((e) => e.endAt ?? Infinity));
      worstMarginMs = Math.max(worstMarginMs, r.arrivalAt < ended ? Infinity : r.arrivalAt - ended);
    }
    if (evidence.length < MAX_EVIDENCE)
      evidence.push({
        at: billed[1]!.arrivalAt,
        correlationId: o.id,
        provider: billed[1]!.provider,
        model: o.model,
        detail: `${billed.length} complete billed answers for one request (${billed.map((r) => `${r.provider}/${r.key} at +${Math.round(r.arrivalAt - o.sentAt)} ms`).join(', ')})`,
      });
  }
  if (answered === 0) {
    const reason = 'no attempt produced a complete billed answer';
    return { ...base, verdict: 'skip', reason, figure: reason, value: null, violations: 0, evidence: [] };
  }
  return {
    ...base,
    verdict: duplicates === 0 ? 'pass' : 'fail',
    figure:
      duplicates === 0
        ? `each of ${count(answered, 'answered request')} billed one complete answer`
        : `${count(duplicates, 'duplicate billed answer')} over ${requests} of ${answered} answered requests (${tokensIn} prompt and ${tokensOut} completion tokens billed for nothing)`,
    value: duplicates,
    threshold: '0 complete billed answers beyond one per request',
    violations: requests,
    evidence,
    ...(duplicates > 0 ? { timing: { toleranceMs: 0, worstMarginMs, lagBound: 'max' as const } } : {}),
    details: { answered, requests, duplicates, wastedTokensIn: tokensIn, wastedTokensOut: tokensOut },
  };
}
