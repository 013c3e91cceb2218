import { atMost, meanInterval } from './confidence.js';
import { attemptsByRequest } from './attempts-by-request.js';
import { count, type CheckInput, type CheckResult } from './types.js';
import { fleetViewOf } from './fleet-view.js';

/** Upstream attempts per client request, and extra attempts (retries and failovers) as a share of requests. */
export function checkAmplification({ outcomes, rows, scenario }: CheckInput): CheckResult {
  const { maxAttemptsPerRequest, maxRetryShare } = scenario.expect.amplification;
  const attempts = attemptsByRequest(rows);
  let total = 0;
  let worst = 0;
  let worstId: string | null = null;
  // Attempts per request, and which requests' attempts a client request accounts for (by group).
  const perRequest = new Int32Array(outcomes.length);
  const claimed = new Uint8Array(attempts.size);
  for (let i = 0; i < outcomes.length; i++) {
    const id = outcomes[i]!.id;
    const g = attempts.groupOf(id);
    const n = g < 0 ? 0 : attempts.sizeOf(g);
    if (g >= 0) claimed[g] = 1;
    perRequest[i] = n;
    total += n;
    if (n > worst) [worst, worstId] = [n, id];
  }
  // Chat attempts no client request accounts for: without a correlation id, or with one no request had.
  let unattributed = 0;
  for (const r of rows) if (r.endpoint === 'chat' && r.correlationId === null) unattributed++;
  for (let g = 0; g < claimed.length; g++) if (claimed[g] === 0) unattributed += attempts.sizeOf(g);
  const mean = outcomes.length ? total / outcomes.length : 0;
  // In a fleet, the same figures per replica: one replica retrying hard shows even when the fleet's mean is fine.
  const fleet = fleetViewOf(outcomes);
  const byReplica = fleet
    ? Array.from({ length: fleet.replicas }, (_, replica) => {
        const mine = outcomes.filter((o) => o.replica === replica);
        const n = mine.reduce((sum, o) => sum + attempts.count(o.id), 0);
        return {
          replica,
          requests: mine.length,
          attemptsPerRequest: mine.length ? Number((n / mine.length).toFixed(3)) : 0,
        };
      })
    : undefined;
  // Extra attempts (retries and failovers) per request; both figures judged on their confidence
  // interval (normal approximation of a mean, one-sided 95 % bounds), not the point alone.
  const extras = perRequest.map((n) => Math.max(0, n - 1));
  const share = extras.length ? extras.reduce((a, b) => a + b, 0) / extras.length : 0;
  const meanCi = meanInterval(perRequest);
  const shareCi = meanInterval(extras);
  const perfect = extras.every((x) => x === 0);
  const standings = [atMost(meanCi, maxAttemptsPerRequest, perfect), atMost(shareCi, maxRetryShare, perfect)];
  const standing = standings.includes('fail') ? 'fail' : standings.includes('marginal') ? 'marginal' : 'pass';
  const ok = standing === 'pass';
  const range = ([a, b]: [number, number], f: (v: number) => string) => `[${f(a)}–${f(b)}]`;
  const pct = (v: number) => (v * 100).toFixed(1);
  return {
    id: 'amplification',
    title: 'Bounded amplification',
    meaning: 'Failovers and retries stayed a bounded share of traffic (no retry storm).',
    verdict: total === 0 ? 'skip' : standing === 'marginal' ? 'inconclusive' : standing,
    ...(total > 0 && standing === 'marginal'
      ? { reason: 'MARGINAL: a confidence interval straddles its threshold; more requests would decide' }
      : {}),
    ...(total === 0
      ? {
          reason:
            outcomes.length === 0
              ? 'no client request was sent'
              : `none of the ${count(outcomes.length, 'client request')} reached a provider`,
        }
      : {}),
    figure: `${mean.toFixed(2)} ${range(meanCi, (v) => Math.max(0, v).toFixed(2))} attempts per request (max ${worst}); extra attempts ${pct(share)} % ${range(shareCi, (v) => pct(Math.max(0, v)))} of requests${standing === 'marginal' ? ': MARGINAL' : ''}`,
    value: mean,
    unit: 'attempts per request',
    threshold: `mean ≤ ${maxAttemptsPerRequest}, extra ≤ ${(maxRetryShare * 100).toFixed(0)} %, judged on each figure's confidence interval (one-sided 95 % bounds); MARGINAL (inconclusive) when one straddles`,
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
      attemptsPerRequestInterval: meanCi,
      extraShareInterval: shareCi,
      maxPerRequest: worst,
      unattributedAttempts: unattributed,
      ...(byReplica ? { byReplica } : {}),
    },
  };
}
