import { count, attemptsByRequest, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

/**
 * For routers that report usage in their answers, what they reported equals what the simulator
 * served: the prompt and completion tokens of the attempt that answered. Skipped when the router
 * reports none.
 */
export function checkUsage({ outcomes, rows, scenario }: CheckInput): CheckResult {
  const base = {
    id: 'usage' as const,
    title: 'Usage is metered exactly',
    meaning: 'The usage the router reported equals the tokens the provider served.',
  };
  if (scenario.expect.usage.source === 'none')
    return {
      ...base,
      verdict: 'skip',
      figure: 'not checked (expect.usage.source: none)',
      value: null,
      violations: 0,
      evidence: [],
    };
  const attempts = attemptsByRequest(rows);
  const evidence: Evidence[] = [];
  let compared = 0;
  let violations = 0;
  for (const o of outcomes) {
    if (o.status !== 200 || o.usage === null) continue;
    if (o.stream && o.streamEnd !== 'done') continue;
    const served = (attempts.get(o.id) ?? []).filter((r) => r.status === 200 && r.end === 'complete');
    const last = served[served.length - 1];
    if (!last) continue;
    compared++;
    if (last.tokensIn !== o.usage.prompt || last.tokensOut !== o.usage.completion) {
      violations++;
      if (evidence.length < MAX_EVIDENCE)
        evidence.push({
          at: o.endAt,
          correlationId: o.id,
          provider: last.provider,
          detail: `router reported ${o.usage.prompt}+${o.usage.completion} tokens; the provider served ${last.tokensIn}+${last.tokensOut}`,
        });
    }
  }
  return {
    ...base,
    verdict: compared === 0 ? 'skip' : violations === 0 ? 'pass' : 'fail',
    figure:
      compared === 0
        ? 'the router reported no usage to compare'
        : `${count(violations, 'mismatch', 'mismatches')} over ${count(compared, 'answer')} with usage`,
    value: violations,
    unit: 'mismatches',
    violations,
    evidence,
    details: { compared },
  };
}
