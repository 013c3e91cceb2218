import { streamCompleted } from '../load/client-outcome.js';
import { covers, intersect, union, type Intervals } from './intervals.js';
import type { ClientOutcome } from '../load/client-outcome.js';
import { oracleColumns } from './oracle-columns.js';
import { replayQuotas } from './quota-oracle.js';
import { finishSliced, type Sliced } from './sliced.js';
import { atLeast, pctRange, wilson } from './confidence.js';
import { attemptsByRequest } from './attempts-by-request.js';
import { groupBy, type CheckInput, type CheckResult } from './types.js';
import { deriveWindows } from './windows.js';
import { plannedRequests } from './planned-requests.js';
import { starvationMeasured } from './starvation.js';
import { unservedThroughStarvation } from './unserved-through-starvation.js';

const BLANKET = new Set(['status', 'hang', 'reset']);

/** Times a fault hit every request of a provider. */
function blanketFaults(scenario: CheckInput['scenario'], provider: string, startedAt: number): Intervals {
  return scenario.faults
    .filter(
      (f) =>
        BLANKET.has(f.kind) &&
        (!f.match.provider || f.match.provider.includes(provider)) &&
        !f.match.key &&
        !f.match.model &&
        f.match.firstN === undefined &&
        f.match.everyNth === undefined &&
        (f.match.probability ?? 1) >= 1 &&
        f.match.stream === undefined,
    )
    .map((f) => [startedAt + f.at, f.for === undefined ? Infinity : startedAt + f.at + f.for] as [number, number]);
}

/** Per provider: when every one of its keys was closed (spans by `provider/key`), or a blanket fault held. */
export function closedProviders(
  scenario: CheckInput['scenario'],
  spansByKey: ReadonlyMap<string, Intervals>,
  startedAt: number,
): Map<string, Intervals> {
  const out = new Map<string, Intervals>();
  for (const p of scenario.providers) {
    let blocked: Intervals | undefined;
    for (const k of p.keys) {
      const keySpans = union(spansByKey.get(`${p.id}/${k.id}`) ?? []);
      blocked = blocked === undefined ? keySpans : intersect(blocked, keySpans);
    }
    out.set(p.id, union([...(blocked ?? []), ...blanketFaults(scenario, p.id, startedAt)]));
  }
  return out;
}

/** Announced waits as spans by `provider/key`. */
export function waitSpans(rows: CheckInput['rows']): Map<string, Intervals> {
  const spans = new Map<string, Intervals>();
  for (const [k, list] of groupBy(deriveWindows(rows, 'key'), (w) => `${w.provider}/${w.key}`))
    spans.set(
      k,
      list.map((w) => [w.start, w.end]),
    );
  return spans;
}

/**
 * The provider models that could serve a requested model: `provider/model` names one, a bare
 * model name each provider listing it, and anything else (`auto`, an alias) every model.
 */
export function candidateTargets(
  model: string,
  scenario: CheckInput['scenario'],
): Array<{ provider: string; model: string }> {
  const slash = model.indexOf('/');
  if (slash > 0) {
    const p = scenario.providers.find(
      (x) => x.id === model.slice(0, slash) && x.models.includes(model.slice(slash + 1)),
    );
    if (p) return [{ provider: p.id, model: model.slice(slash + 1) }];
  }
  const listing = scenario.providers.filter((x) => x.models.includes(model)).map((x) => ({ provider: x.id, model }));
  return listing.length > 0
    ? listing
    : scenario.providers.flatMap((x) => x.models.map((m) => ({ provider: x.id, model: m })));
}

/** The providers that could serve a requested model (see `candidateTargets`). */
export function candidateProviders(model: string, scenario: CheckInput['scenario']): string[] {
  return [...new Set(candidateTargets(model, scenario).map((t) => t.provider))];
}

/**
 * When no provider that could serve `model` had capacity, by `blocked` (per provider, see
 * `forcedBlocked`). Requests whose whole deadline fell in such a time had no capacity to be served
 * with and are left out of goodput.
 */
function noCapacity(input: CheckInput, model: string, blocked: ReadonlyMap<string, Intervals>): Intervals {
  let all: Intervals | undefined;
  for (const id of candidateProviders(model, input.scenario)) {
    const b = blocked.get(id) ?? [];
    all = all === undefined ? b : intersect(all, b);
  }
  return all ?? [];
}

/**
 * Times each provider was closed by the weather alone: blanket faults, and on every key the waits
 * announced by forced 429s. Not the quota waits the router's own attempts ran into: a router that
 * spends its quota badly (without the prompt cache, say) would lower its own bar; the quota
 * oracle replays the real quotas itself.
 */
function forcedBlocked(input: CheckInput, startedAt: number): Map<string, Intervals> {
  return closedProviders(input.scenario, waitSpans(input.rows.filter((r) => r.faults.length > 0)), startedAt);
}

/** No attempt reached any provider: nothing says how the router copes with them (the cause is in its answers and log). */
function neverReached(outcomes: readonly ClientOutcome[]): CheckResult {
  const byStatus = new Map<string, number>();
  for (const o of outcomes) {
    const k = o.status === 0 ? (o.error ?? 'no answer') : `${o.status}${o.error ? ` ${o.error}` : ''}`;
    byStatus.set(k, (byStatus.get(k) ?? 0) + 1);
  }
  const answers = [...byStatus].map(([k, n]) => `${n}×${k}`).join(', ');
  const cause = outcomes.find((o) => o.detail)?.detail;
  return {
    id: 'goodput',
    title: 'Goodput while capacity existed',
    meaning: 'Of the requests the providers had capacity for, the share the router did serve.',
    verdict: 'skip',
    reason: `no request reached a provider (clients got ${answers}): the router, or its configuration, never called one; see its log`,
    figure: `no request reached a provider (clients got ${answers})`,
    value: null,
    unit: 'share',
    violations: 0,
    evidence: cause ? [{ correlationId: outcomes.find((o) => o.detail)!.id, detail: `first cause: ${cause}` }] : [],
  };
}

/**
 * The share of requests served (complete answers, streams ending in `[DONE]`) among those that
 * could have been, judged from the weather, never from what the router chose to send. Left out:
 * requests the load made invalid on their face (no router could serve them), requests during
 * whose deadline (less `serviceTime`) a forced fault closed every provider that could serve them,
 * and answers cut by a fault after their first token. And since "some capacity" is not "enough
 * for everyone", the share is taken of what the providers' quotas could have admitted in time,
 * with the best prompt caching the request stream allows (the quota oracle), when that is fewer.
 */
export function checkGoodput(input: CheckInput & { startedAt: number }): CheckResult {
  return finishSliced(judgeGoodput(input), input.giveUp);
}

/** `checkGoodput` in slices (see `Sliced`): the quota oracle's replay yields; asked to stop, it is cut short. */
export function* judgeGoodput(input: CheckInput & { startedAt: number }): Sliced<CheckResult> {
  const { outcomes, rows, scenario } = input;
  const forced = forcedBlocked(input, input.startedAt);
  const byModel = new Map<string, Intervals>();
  const blockedFor = (model: string) => {
    let b = byModel.get(model);
    if (!b) byModel.set(model, (b = noCapacity(input, model, forced)));
    return b;
  };
  const planned = plannedRequests(input);
  const attempts = attemptsByRequest(rows);
  const postCommit = new Set(
    scenario.faults.filter((f) => f.kind === 'stream-break' || f.kind === 'malformed').map((f) => f.id),
  );
  const { serviceTime } = scenario.expect.goodput;
  // Outcomes by index, not copied arrays of them: a day's run has a million.
  const eligible: number[] = [];
  let served = 0;
  let excludedNoCapacity = 0;
  let excludedCut = 0;
  let excludedInvalid = 0;
  for (let i = 0; i < outcomes.length; i++) {
    const o = outcomes[i]!;
    if (planned?.(o.id)?.invalid) {
      excludedInvalid++;
      continue;
    }
    if (covers(blockedFor(o.model), o.sentAt, o.sentAt + Math.max(0, o.deadlineMs - serviceTime))) {
      excludedNoCapacity++;
      continue;
    }
    const last = attempts.last(o.id);
    if (last && last.faults.some((id) => postCommit.has(id))) {
      excludedCut++;
      continue;
    }
    eligible.push(i);
    if (o.status === 200 && (!o.stream || streamCompleted(o))) served++;
  }
  const servable = yield* replayQuotas(
    scenario,
    oracleColumns(input, eligible, attempts, serviceTime, (model) => candidateTargets(model, scenario), planned),
    forced,
  );
  // Judging was cut short (a stopped run): no bound, so a shortfall is not judged a failure.
  const cut = servable === undefined;
  const base = cut ? eligible.length : Math.min(eligible.length, servable);
  const reached = rows.some((r) => r.endpoint === 'chat');
  if (!reached && outcomes.length > 0) return neverReached(outcomes);
  const share = base === 0 ? 1 : Math.min(1, served / base);
  const min = scenario.expect.goodput.min;
  const bound = !cut && servable < eligible.length ? `; the quotas allowed ${servable}` : '';
  // The share's confidence interval (Wilson score, one-sided 95 % bounds) judged against the threshold.
  const interval = wilson(Math.min(served, base), base);
  const standing = atLeast(interval, min, served >= base);
  const needs = `needs ≥ ${(min * 100).toFixed(1)} %`;
  // When counting the unserved requests a starved machine may have cost (see
  // `unservedThroughStarvation`) as served would not fail the run, the machine, not the router, may
  // have failed it: INCONCLUSIVE.
  const { count: starved, routerWaited } = unservedThroughStarvation(input, eligible);
  const overloaded =
    standing === 'fail' &&
    starved > 0 &&
    atLeast(wilson(Math.min(served + starved, base), base), min, served + starved >= base) !== 'fail';
  return {
    id: 'goodput',
    title: 'Goodput while capacity existed',
    meaning: 'Of the requests the providers had capacity for, the share the router did serve.',
    verdict:
      base === 0
        ? 'skip'
        : standing === 'marginal' || overloaded || (cut && standing === 'fail')
          ? 'inconclusive'
          : standing,
    ...(base === 0 ? { reason: 'no request had capacity to be served with' } : {}),
    ...(base > 0 && cut && standing === 'fail'
      ? {
          reason:
            'not judged: the run was stopped before the replay of what the quotas allowed was done, and without that bound a shortfall may be the quotas, not the router',
        }
      : {}),
    ...(overloaded
      ? {
          reason: routerWaited
            ? `machine overloaded: ${starved} of the ${eligible.length - served} unserved requests lived through loop stalls and router run-queue delay of a tenth of their deadline or more together (the harness's event loop was behind, and ${outcomes.some((o) => o.replica !== undefined) ? 'the processes of the replica that held each of them' : "the router's process"} waited for a CPU); counted as served they would not fail the threshold (${needs})`
            : `harness overloaded: ${starved} of the ${eligible.length - served} unserved requests lived through loop stalls of a tenth of their deadline or more (the harness's event loop, shared with the simulator and an in-process router, was behind); counted as served they would not fail the threshold (${needs})`,
        }
      : {}),
    ...(base > 0 && standing === 'marginal'
      ? {
          reason: `MARGINAL: ${(share * 100).toFixed(1)} % [${pctRange(interval)}] straddles the threshold (${needs}); more requests would decide`,
        }
      : {}),
    figure:
      base === 0
        ? 'no request had capacity to be served with'
        : `${(share * 100).toFixed(1)} % [${pctRange(interval)}] served (${served} of ${eligible.length}${bound}), ${needs}${standing === 'marginal' ? ': MARGINAL' : ''}`,
    value: share,
    unit: 'share',
    threshold: `${needs}, judged on the Wilson score interval (one-sided 95 % bounds); MARGINAL (inconclusive) when it straddles`,
    violations: standing === 'pass' ? 0 : base - Math.min(served, base),
    evidence:
      standing === 'pass'
        ? []
        : eligible
            .map((i) => outcomes[i]!)
            .filter((o) => o.status !== 200)
            .slice(0, 20)
            .map((o) => ({
              at: o.endAt,
              correlationId: o.id,
              detail: `not served: ${o.status === 0 ? 'no answer' : `status ${o.status}`}${o.error ? ` (${o.error})` : ''}${o.detail ? `: ${o.detail}` : ''}`,
            })),
    details: {
      eligible: eligible.length,
      served,
      ...(cut ? { servableByQuotaCut: true } : { servableByQuota: servable }),
      interval,
      excludedNoCapacity,
      excludedCutByFault: excludedCut,
      ...(excludedInvalid > 0 ? { excludedInvalid } : {}),
      ...(starvationMeasured(input) ? { unservedThroughStalls: starved } : {}),
      noCapacityMs: blockedFor('auto').reduce((a, [s, e]) => a + (Number.isFinite(e) ? e - s : 0), 0),
    },
  };
}
