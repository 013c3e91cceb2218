import { attemptsByRequest, count, type CheckInput, type CheckResult } from './types.js';
import { fleetViewOf } from './fleet-view.js';

/** Upstream attempts per client request, and extra attempts (retries and failovers) as a share of requests. */
export function checkAmplification({ outcomes, rows, scenario }: CheckInput): CheckResult {
  const { maxAttemptsPerRequest, maxRetryShare } = scenario.expect.amplification;
  const attempts = attemptsByRequest(rows);
  let total = 0;
  let worst = 0;
  let worstId: string | null = null;
  for (const o of outcomes) {
    const n = attempts.get(o.id)?.length ?? 0;
    total += n;
    if (n > worst) [worst, worstId] = [n, o.id];
  }
  const ids = new Set(outcomes.map((o) => o.id));
  const unattributed = rows.filter(
    (r) => r.endpoint === 'chat' && (r.correlationId === null || !ids.has(r.correlationId)),
  ).length;
  const mean = outcomes.length ? total / outcomes.length : 0;
  // In a fleet, the same figures per replica: one replica retrying hard shows even when the fleet's mean is fine.
  const fleet = fleetViewOf(outcomes);
  const byReplica = fleet
    ? Array.from({ length: fleet.replicas }, (_, replica) => {
        const mine = outcomes.filter((o) => o.replica === replica);
        const n = mine.reduce((sum, o) => sum + (attempts.get(o.id)?.length ?? 0), 0);
        return {
          replica,
          requests: mine.length,
          attemptsPerRequest: mine.length ? Number((n / mine.length).toFixed(3)) : 0,
        };
      })
    : undefined;
  const share = outcomes.length ? Math.max(0, total - outcomes.length) / outcomes.length : 0;
  const ok = mean <= maxAttemptsPerRequest && share <= maxRetryShare;
  return {
    id: 'amplification',
    title: 'Bounded amplification',
    meaning: 'Failovers and retries stayed a bounded share of traffic (no retry storm).',
    verdict: total === 0 ? 'skip' : ok ? 'pass' : 'fail',
    ...(total === 0
      ? {
          reason:
            outcomes.length === 0
              ? 'no client request was sent'
              : `none of the ${count(outcomes.length, 'client request')} reached a provider`,
        }
      : {}),
    figure: `${mean.toFixed(2)} attempts per request (max ${worst}); extra attempts ${(share * 100).toFixed(1)} % of requests`,
    value: mean,
    unit: 'attempts per request',
    threshold: `mean ≤ ${maxAttemptsPerRequest}, extra ≤ ${(maxRetryShare * 100).toFixed(0)} %`,
    violations: ok ? 0 : 1,
    evidence: ok
      ? []
      : [
          {
            correlationId: worstId,
            detail: `${mean.toFixed(2)} attempts per request on average; request ${worstId} took ${worst}`,
          },
        ],
    details: {
      attempts: total,
      requests: outcomes.length,
      maxPerRequest: worst,
      unattributedAttempts: unattributed,
      ...(byReplica ? { byReplica } : {}),
    },
  };
}
