import { attemptsByRequest } from './attempts-by-request.js';
import { plannedRequests } from './planned-requests.js';
import { allOf, count, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

/** How long after the provider's refusal (or the request, when none was sent) the client's 4xx may come. */
export const CLIENT_ERROR_TOLERANCE_MS = 500;

/** The 4xx a client may retry (timeout, conflict, rate limit): no answer for a request that is itself wrong. */
const RETRYABLE_4XX = new Set([408, 409, 429]);

/** A provider's refusal of the request itself, as opposed to its key (401, 403) or its quota (429). */
function refusesRequest(status: number): boolean {
  return status === 400 || status === 404 || status === 413 || status === 422;
}

/**
 * Requests invalid on their face (the load's `requests.invalid`: no provider would ever serve
 * them) go back to the client promptly, as a 4xx, with the provider's status when one refused it,
 * after at most one attempt: not retried on the same provider nor on another. A 401 or 403 is the
 * router's own key problem, and failing over is right: those requests are not judged here.
 */
export function checkClientErrors(input: CheckInput): CheckResult {
  const base = {
    id: 'client-errors' as const,
    title: 'Client errors go back to the client',
    meaning:
      'Requests no provider could serve (invalid on their face) get a prompt 4xx with the provider’s status, after at most one attempt.',
    unit: 'requests',
  };
  const planned = plannedRequests(input);
  const invalid = planned ? input.outcomes.filter((o) => planned(o.id)?.invalid) : [];
  if (invalid.length === 0) {
    const reason = !input.scenario.load?.requests.invalid
      ? 'the load sent no request invalid on its face'
      : 'the run’s seed is unknown, so which requests were invalid is too';
    return { ...base, verdict: 'skip', reason, figure: reason, value: null, violations: 0, evidence: [] };
  }
  const attempts = attemptsByRequest(input.rows);
  const evidence: Evidence[] = [];
  let violations = 0;
  let retried = 0;
  let wrongStatus = 0;
  let late = 0;
  let worstLateMs = -Infinity;
  for (const o of invalid) {
    const rows = attempts.get(o.id) ?? [];
    const refusal = rows.find((r) => r.faults.length === 0 && refusesRequest(r.status));
    const from = refusal ? (refusal.endAt ?? refusal.firstByteAt ?? refusal.arrivalAt) : o.sentAt;
    const lateMs = o.endAt - from - CLIENT_ERROR_TOLERANCE_MS;
    const problems: string[] = [];
    if (rows.length > 1) {
      retried++;
      const providers = new Set(rows.map((r) => r.provider));
      problems.push(
        `${count(rows.length, 'attempt')} on ${count(providers.size, 'provider')} (${[...providers].join(', ')})`,
      );
    }
    const is4xx = o.status >= 400 && o.status < 500 && !RETRYABLE_4XX.has(o.status);
    if (!is4xx || (refusal && o.status !== refusal.status)) {
      wrongStatus++;
      problems.push(
        `client got ${o.status === 0 ? `no answer${o.error ? ` (${o.error})` : ''}` : `status ${o.status}`}${refusal ? `, the provider said ${refusal.status}` : ', a 4xx was due'}`,
      );
    }
    if (lateMs > 0) {
      late++;
      worstLateMs = Math.max(worstLateMs, lateMs);
      problems.push(`answered ${Math.round(o.endAt - from)} ms after ${refusal ? 'the refusal' : 'it was sent'}`);
    }
    if (problems.length === 0) continue;
    violations++;
    if (evidence.length < MAX_EVIDENCE)
      evidence.push({
        at: o.endAt,
        correlationId: o.id,
        model: o.model,
        detail: `invalid request: ${problems.join('; ')}`,
      });
  }
  const parts = [
    retried ? `${retried} retried` : '',
    wrongStatus ? `${wrongStatus} not answered with the provider’s 4xx` : '',
    late ? `${late} late` : '',
  ].filter(Boolean);
  return {
    ...base,
    verdict: violations === 0 ? 'pass' : 'fail',
    figure:
      violations === 0
        ? `${allOf(invalid.length, 'invalid request')} answered with a 4xx within ${CLIENT_ERROR_TOLERANCE_MS} ms, at most one attempt each`
        : `${violations} of ${invalid.length} invalid requests mishandled: ${parts.join(', ')}`,
    value: violations,
    threshold: `0 requests retried, answered other than with the provider’s 4xx, or more than ${CLIENT_ERROR_TOLERANCE_MS} ms after the refusal`,
    violations,
    evidence,
    ...(late > 0 && late === violations
      ? { timing: { toleranceMs: CLIENT_ERROR_TOLERANCE_MS, worstMarginMs: worstLateMs } }
      : {}),
    details: { invalid: invalid.length, retried, wrongStatus, late },
  };
}
