import { count, MAX_EVIDENCE, type CheckInput, type CheckResult } from './types.js';

/** No client ever received a 429; other error statuses passed to clients are counted alongside. */
export function checkNo429({ outcomes }: CheckInput): CheckResult {
  const hits = outcomes.filter((o) => o.status === 429);
  const otherErrors = outcomes.filter((o) => o.status >= 400 && o.status !== 429);
  const byStatus: Record<string, number> = {};
  for (const o of otherErrors) byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
  return {
    id: 'no-429',
    title: 'No 429 reaches the client',
    meaning: 'The router absorbed every provider rate limit; no client request was answered 429.',
    verdict: hits.length === 0 ? 'pass' : 'fail',
    figure: `${hits.length} of ${count(outcomes.length, 'client request')} got 429${otherErrors.length ? `; ${otherErrors.length} got other errors` : ''}`,
    value: hits.length,
    unit: 'requests',
    violations: hits.length,
    evidence: hits
      .slice(0, MAX_EVIDENCE)
      .map((o) => ({ at: o.endAt, correlationId: o.id, detail: `client got 429${o.error ? ` (${o.error})` : ''}` })),
    details: { otherErrorsByStatus: byStatus },
  };
}
