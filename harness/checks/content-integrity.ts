import { contentDigest } from '../../simulator/index.js';
import { servedAnswers, type ServedAnswer } from './served-answers.js';
import { allOf, count, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

const EMPTY = contentDigest('');

/**
 * The text a client received is exactly what one provider produced for it: its digest equals
 * the digest the simulator recorded for one successful attempt of the request. Two providers'
 * streams spliced together, a frame sent twice or dropped, text rewritten: none matches.
 */
export function checkContentIntegrity({ outcomes, rows }: CheckInput): CheckResult {
  const base = {
    id: 'content-integrity' as const,
    title: 'Content is what one provider produced',
    meaning:
      'The text of every answer equals the text one provider generated for that request: no splice of two streams, no duplicated, missing or altered frames.',
    unit: 'answers',
  };
  const { answers } = servedAnswers(outcomes, rows);
  // Each row's digest is read (formatted from the ledger's column) once: a day's run has a million.
  // Only the first answers that differ are kept (for evidence), not every answer judged.
  let judged = 0;
  let violations = 0;
  const mismatched: ServedAnswer[] = [];
  for (const a of answers) {
    const got = a.outcome.contentDigest ?? EMPTY;
    let produced = false;
    let match = false;
    for (const r of a.succeeded) {
      const d = r.contentDigest;
      if (d === null) continue;
      produced = true;
      if (d === got) {
        match = true;
        break;
      }
    }
    if (!produced) continue;
    judged++;
    if (match) continue;
    violations++;
    if (mismatched.length < MAX_EVIDENCE) mismatched.push(a);
  }
  if (judged === 0)
    return {
      ...base,
      verdict: 'skip',
      figure:
        answers.length === 0
          ? 'no answers to judge: no request was served'
          : `no answer of ${count(answers.length, 'request')} could be traced to an upstream success with text`,
      value: null,
      violations: 0,
      evidence: [],
    };
  const evidence: Evidence[] = [];
  for (const { outcome: o, succeeded, attempts } of mismatched) {
    const chars = o.contentChars ?? 0;
    const produced = succeeded.filter((r) => r.contentDigest !== null);
    const sizes = produced.map((r) => r.contentChars ?? 0);
    const near = produced.reduce((a, r) =>
      Math.abs((r.contentChars ?? 0) - chars) < Math.abs((a.contentChars ?? 0) - chars) ? r : a,
    );
    const all = attempts.filter((r) => (r.contentChars ?? 0) > 0).reduce((n, r) => n + (r.contentChars ?? 0), 0);
    const how =
      attempts.length > 1 && chars > Math.max(...sizes) && chars <= all
        ? 'more than any one attempt produced (spliced or duplicated frames?)'
        : chars > (near.contentChars ?? 0)
          ? 'more than the provider produced (a duplicated frame?)'
          : chars < (near.contentChars ?? 0)
            ? 'less than the provider produced (a missing frame?)'
            : 'as long as the provider produced, but different text';
    evidence.push({
      at: o.endAt,
      correlationId: o.id,
      provider: near.provider,
      model: near.model,
      detail: `client received ${chars} chars, ${how}; ${near.provider} produced ${near.contentChars ?? 0} (${count(attempts.length, 'attempt')})`,
    });
  }
  return {
    ...base,
    verdict: violations === 0 ? 'pass' : 'fail',
    figure:
      violations === 0
        ? `${allOf(judged, 'answer')} match the text one provider produced`
        : `${violations} of ${count(judged, 'answer')} differ from what any one provider produced`,
    value: violations,
    violations,
    evidence,
    details: { judged, servedUntraced: answers.length - judged },
  };
}
