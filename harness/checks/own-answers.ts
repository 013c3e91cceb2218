import type { LedgerRow } from '../../simulator/index.js';
import type { ClientOutcome, ErrorAnswer } from '../load/client-outcome.js';
import { attemptsByRequest } from './attempts-by-request.js';
import { errorShapeFault } from './error-shape.js';
import { announcedWaitAt } from './announced-wait.js';
import { blockedByProvider } from './blocked-by-provider.js';
import { intersect, overlaps, type Intervals } from './intervals.js';
import { modelRules, type ModelRule } from './served-answers.js';
import { count, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

/** A capacity problem's right answers: the client may come back (429, 503) or its time ran out (504). */
const CAPACITY_STATUSES = new Set([429, 503, 504]);

/** Upstream statuses that say "no capacity now": rate limits and overloads (Anthropic's 529 too). */
const CAPACITY_UPSTREAM = new Set([429, 503, 529]);

/**
 * A Retry-After need not announce more than this: past it a client is better told to come back
 * soon and ask again than to wait out an announced hour.
 */
export const RETRY_AFTER_CAP_MS = 60_000;

/**
 * A Retry-After is whole seconds, so only a wait rounded up is no shorter than the one announced;
 * this much slack covers the router reading the hint a moment after the simulator sent it.
 */
const TOLERANCE_MS = 100;

/** Retry-After in ms from `at`: delta-seconds or an HTTP date (RFC 9110 §10.2.3); null if absent or unreadable. */
export function retryAfterMs(value: string | undefined, at: number): number | null {
  if (value === undefined) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const date = Date.parse(v);
  return /[a-z]/i.test(v) && Number.isFinite(date) ? date - at : null;
}

/**
 * Whether the case was capacity: every attempt rate-limited or overloaded, or none sent and the
 * router said as much (a 429 or a 5xx) while every provider that could serve the request was
 * closed (`allClosed`: see `blockedByProvider`). With no attempt sent, another 4xx is the router
 * refusing the request itself (a path it does not serve, a body it cannot read, a model it does not
 * know): nothing says capacity was the case, and CE-1 judges client errors. A 5xx with no attempt
 * while a provider was open is the router's own failure (a translation it lacks, say), not
 * capacity: OWN-1 leaves its status to the router, OWN-2 still judges its body.
 */
function capacityCase(attempts: readonly LedgerRow[], status: number, allClosed: () => boolean): boolean {
  if (attempts.length === 0) return (status === 429 || status >= 500) && allClosed();
  return attempts.every((r) => CAPACITY_UPSTREAM.has(r.status));
}

/**
 * Whether every provider the model may go to was closed at some instant between the request's
 * arrival (less `TOLERANCE_MS`: a router may keep a wait a moment longer than it was announced)
 * and its answer.
 */
function allClosedFor(
  closed: ReadonlyMap<string, Intervals>,
  rule: ModelRule,
  providers: readonly string[],
  from: number,
  to: number,
): boolean {
  if ('unknown' in rule) return true;
  const allowed = rule.any ? providers : [...new Set(rule.targets.map((t) => t.split('/')[0]!))];
  const together = allowed.reduce<Intervals>(
    (acc, p, i) => (i === 0 ? (closed.get(p) ?? []) : intersect(acc, closed.get(p) ?? [])),
    [],
  );
  return overlaps(together, from - TOLERANCE_MS, Math.max(to, from) + 1);
}

/**
 * The router's own error answers (a status of 400 or more, as the load recorded them) are right
 * (OWN-1) and parse as the inbound API's SDKs parse errors (OWN-2). Right: a request that failed
 * for capacity (no attempt sent, or every attempt rate-limited or overloaded) is answered 429,
 * 503 or 504, never a 500; a 503 given while every provider that could serve the request was in a
 * wait it had announced carries a Retry-After no shorter than the time until the earliest of
 * those waits ends (at most `RETRY_AFTER_CAP_MS`; whole seconds, rounded up).
 * Shaped: OpenAI's `{error:{message,type,code}}` on chat completions, Responses and embeddings,
 * Anthropic's `{type:'error',error:{type,message}}` on Messages.
 */
export function checkOwnAnswers(input: CheckInput & { startedAt: number }): CheckResult {
  const { outcomes, rows, scenario } = input;
  const base = {
    id: 'own-answers' as const,
    title: "The router's own errors are right and parseable",
    meaning:
      "Every error the router answered itself has the status its case calls for (429/503/504 for capacity, a Retry-After that covers the providers' announced waits) and the error body its API's SDKs parse.",
    unit: 'answers',
  };
  let errors = 0;
  const answered: Array<{ o: ClientOutcome; a: ErrorAnswer }> = [];
  for (const o of outcomes) {
    if (o.status < 400) continue;
    errors++;
    const a = o.errorAnswer;
    if (a !== undefined) answered.push({ o, a });
  }
  if (answered.length === 0)
    return {
      ...base,
      verdict: 'skip',
      figure:
        errors === 0
          ? 'the router answered no error of its own'
          : `${count(errors, 'error answer')} but none recorded whole (status, headers and body)`,
      value: null,
      violations: 0,
      evidence: [],
    };
  const byRequest = attemptsByRequest(rows);
  const ruleOf = modelRules(scenario);
  const waitAt = announcedWaitAt(rows, scenario);
  let closed: Map<string, Intervals> | undefined;
  const providerIds = scenario.providers.map((p) => p.id);
  const allClosed = (o: ClientOutcome, at: number) => () =>
    allClosedFor((closed ??= blockedByProvider(input, input.startedAt)), ruleOf(o.model), providerIds, o.sentAt, at);
  const evidence: Evidence[] = [];
  let wrongStatus = 0;
  let shortRetry = 0;
  let misshapen = 0;
  let capacity = 0;
  let windowed = 0;
  for (const { o, a } of answered) {
    const attempts = byRequest.get(o.id) ?? [];
    const at = o.firstByteAt ?? o.endAt;
    const found: string[] = [];
    if (capacityCase(attempts, o.status, allClosed(o, at))) {
      capacity++;
      if (!CAPACITY_STATUSES.has(o.status)) {
        wrongStatus++;
        found.push(
          `answered ${o.status} for a capacity problem (${attempts.length === 0 ? 'no attempt sent' : `${count(attempts.length, 'attempt')}, all ${[...new Set(attempts.map((r) => r.status))].join('/')}`}); 429, 503 or 504 says so`,
        );
      }
    }
    if (o.status === 503) {
      const wait = waitAt(at, ruleOf(o.model));
      if (wait !== null) {
        windowed++;
        const needMs = Math.min(wait.endsAt - at, RETRY_AFTER_CAP_MS);
        const got = retryAfterMs(a.headers['retry-after'], at);
        if (got === null || got < needMs - TOLERANCE_MS) {
          shortRetry++;
          found.push(
            `503 while every provider it could use was in an announced wait (${wait.providers.join(', ')}; the first ends in ${Math.round(wait.endsAt - at)} ms) ${got === null ? 'without a Retry-After' : `with Retry-After: ${a.headers['retry-after']}`}`,
          );
        }
      }
    }
    const shape = errorShapeFault(a);
    if (shape !== null) {
      misshapen++;
      found.push(shape);
    }
    if (found.length > 0 && evidence.length < MAX_EVIDENCE)
      evidence.push({ at: o.endAt, correlationId: o.id, model: o.model, detail: found.join('; ') });
  }
  const violations = wrongStatus + shortRetry + misshapen;
  const judged = `${count(answered.length, 'error answer')} (${capacity} for capacity, ${windowed} 503s during announced waits)`;
  return {
    ...base,
    verdict: violations === 0 ? 'pass' : 'fail',
    figure:
      violations === 0
        ? `${judged} right and parseable`
        : `${violations} faults in ${judged}: ${wrongStatus} wrong statuses, ${shortRetry} Retry-Afters missing or short, ${misshapen} bodies SDKs cannot parse`,
    value: violations,
    violations,
    evidence,
    details: { judged: answered.length, unrecorded: errors - answered.length, wrongStatus, shortRetry, misshapen },
  };
}
