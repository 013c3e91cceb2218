import { count, MAX_EVIDENCE, type CheckInput, type CheckResult } from './types.js';

/** A provider's rate limit or overload as a status: 429, and Anthropic's non-standard 529. */
const LIMITED = (status: number) => status === 429 || status === 529;

/**
 * No client ever received a 429 (or Anthropic's 529, which no client of a router should see);
 * other error statuses passed to clients are counted alongside. With no 429 from any provider
 * there was nothing to absorb: skipped, unless a client got one anyway (a router that invents
 * them, or passes a 529 on, fails).
 */
export function checkNo429({ outcomes, rows }: CheckInput): CheckResult {
  const hits = outcomes.filter((o) => LIMITED(o.status));
  const upstream = rows.filter((r) => r.endpoint === 'chat' && r.status === 429).length;
  const nothing = hits.length === 0 && upstream === 0;
  const otherErrors = outcomes.filter((o) => o.status >= 400 && !LIMITED(o.status));
  const byStatus: Record<string, number> = {};
  for (const o of otherErrors) byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
  return {
    id: 'no-429',
    title: 'No 429 reaches the client',
    meaning: 'The router absorbed every provider rate limit; no client request was answered 429.',
    verdict: hits.length > 0 ? 'fail' : nothing ? 'skip' : 'pass',
    ...(nothing ? { reason: 'no provider answered 429: there was no rate limit to absorb' } : {}),
    figure: `${hits.length} of ${count(outcomes.length, 'client request')} got 429${hits.some((o) => o.status === 529) ? ' or 529' : ''}${nothing ? '' : ` (providers answered ${count(upstream, '429')})`}${otherErrors.length ? `; ${otherErrors.length} got other errors` : ''}`,
    value: hits.length,
    unit: 'requests',
    violations: hits.length,
    evidence: hits.slice(0, MAX_EVIDENCE).map((o) => ({
      at: o.endAt,
      correlationId: o.id,
      detail: `client got ${o.status}${o.error ? ` (${o.error})` : ''}${o.detail ? `: ${o.detail}` : ''}`,
    })),
    details: { otherErrorsByStatus: byStatus, upstream429s: upstream },
  };
}
