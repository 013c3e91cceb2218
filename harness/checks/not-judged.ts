import { CLAUSES } from '../spec/clauses.js';
import type { CheckId } from '../scenario/schema.js';
import type { CheckResult } from './types.js';

/**
 * The result of a check that judging never reached, because the run was stopped while it judged:
 * INCONCLUSIVE and saying so, never a pass (and never a skip, which means nothing to judge).
 */
export function notJudged(id: CheckId, why: string): CheckResult {
  return {
    id,
    title: CLAUSES.find((c) => c.check === id)?.title ?? id,
    meaning: `Not judged: ${why}.`,
    verdict: 'inconclusive',
    reason: `not judged: ${why}`,
    figure: 'not judged: the run was stopped while judging',
    value: null,
    violations: 0,
    evidence: [],
    details: { notJudged: true },
  };
}

/** Whether a check result is one judging never reached (see `notJudged`). */
export function isNotJudged(result: CheckResult): boolean {
  return result.details?.['notJudged'] === true;
}
