import { covers, intersect, union, type Intervals } from './intervals.js';
import { attemptsByRequest, type CheckInput, type CheckResult } from './types.js';
import { deriveWindows } from './windows.js';

const BLANKET = new Set(['status', 'hang', 'reset']);

/**
 * When each provider could not serve at all: inside announced waits on all its keys, or under a
 * fault that hit every one of its requests.
 */
export function blockedByProvider(input: CheckInput, startedAt: number): Map<string, Intervals> {
  const { rows, scenario } = input;
  const windows = deriveWindows(rows, 'key');
  const out = new Map<string, Intervals>();
  for (const p of scenario.providers) {
    let blocked: Intervals | undefined;
    for (const k of p.keys) {
      const keyWindows = union(windows.filter((w) => w.provider === p.id && w.key === k.id).map((w) => [w.start, w.end] as [number, number]));
      blocked = blocked === undefined ? keyWindows : intersect(blocked, keyWindows);
    }
    const faults: Intervals = scenario.faults
      .filter((f) => BLANKET.has(f.kind) && (!f.match.provider || f.match.provider.includes(p.id)) && !f.match.key && !f.match.model && f.match.firstN === undefined && f.match.everyNth === undefined && (f.match.probability ?? 1) >= 1 && f.match.stream === undefined)
      .map((f) => [startedAt + f.at, f.for === undefined ? Infinity : startedAt + f.at + f.for]);
    out.set(p.id, union([...(blocked ?? []), ...faults]));
  }
  return out;
}

/**
 * The providers that could serve a requested model: `provider/model` names one, a bare model name
 * the providers that list it, and anything else (`auto`, an alias) every provider.
 */
export function candidateProviders(model: string, scenario: CheckInput['scenario']): string[] {
  const slash = model.indexOf('/');
  if (slash > 0) {
    const p = scenario.providers.find((x) => x.id === model.slice(0, slash) && x.models.includes(model.slice(slash + 1)));
    if (p) return [p.id];
  }
  const listing = scenario.providers.filter((x) => x.models.includes(model)).map((x) => x.id);
  return listing.length > 0 ? listing : scenario.providers.map((x) => x.id);
}

/**
 * When no provider that could serve `model` had capacity. Requests whose whole deadline fell in
 * such a time had no capacity to be served with and are left out of goodput.
 */
export function noCapacity(input: CheckInput, startedAt: number, model = 'auto', blocked = blockedByProvider(input, startedAt)): Intervals {
  let all: Intervals | undefined;
  for (const id of candidateProviders(model, input.scenario)) {
    const b = blocked.get(id) ?? [];
    all = all === undefined ? b : intersect(all, b);
  }
  return all ?? [];
}

/**
 * The share of requests served (complete answers, streams ending in `[DONE]`) among those that
 * could have been: requests during whose deadline (less `serviceTime`) no provider that could
 * serve them had capacity, and answers cut by a fault after their first token, are not held
 * against the router.
 */
export function checkGoodput(input: CheckInput & { startedAt: number }): CheckResult {
  const { outcomes, rows, scenario } = input;
  const perProvider = blockedByProvider(input, input.startedAt);
  const byModel = new Map<string, Intervals>();
  const blockedFor = (model: string) => {
    let b = byModel.get(model);
    if (!b) byModel.set(model, (b = noCapacity(input, input.startedAt, model, perProvider)));
    return b;
  };
  const attempts = attemptsByRequest(rows);
  const postCommit = new Set(scenario.faults.filter((f) => f.kind === 'stream-break' || f.kind === 'malformed').map((f) => f.id));
  let eligible = 0;
  let served = 0;
  let excludedNoCapacity = 0;
  let excludedCut = 0;
  for (const o of outcomes) {
    if (covers(blockedFor(o.model), o.sentAt, o.sentAt + Math.max(0, o.deadlineMs - scenario.expect.goodput.serviceTime))) {
      excludedNoCapacity++;
      continue;
    }
    const last = attempts.get(o.id)?.at(-1);
    if (last && last.faults.some((id) => postCommit.has(id))) {
      excludedCut++;
      continue;
    }
    eligible++;
    if (o.status === 200 && (!o.stream || o.streamEnd === 'done')) served++;
  }
  const share = eligible === 0 ? 1 : served / eligible;
  const min = scenario.expect.goodput.min;
  return {
    id: 'goodput',
    title: 'Goodput while capacity existed',
    meaning: 'Of the requests some provider could have served, the share the router did serve.',
    verdict: eligible === 0 ? 'skip' : share >= min ? 'pass' : 'fail',
    figure: eligible === 0 ? 'no request had capacity to be served with' : `${(share * 100).toFixed(1)} % served (${served} of ${eligible})`,
    value: share,
    unit: 'share',
    threshold: `≥ ${(min * 100).toFixed(1)} %`,
    violations: share >= min ? 0 : eligible - served,
    evidence: share >= min ? [] : outcomes.filter((o) => o.status !== 200).slice(0, 20).map((o) => ({ at: o.endAt, correlationId: o.id, detail: `not served: status ${o.status}${o.error ? ` (${o.error})` : ''}` })),
    details: { eligible, served, excludedNoCapacity, excludedCutByFault: excludedCut, noCapacityMs: blockedFor('auto').reduce((a, [s, e]) => a + (Number.isFinite(e) ? e - s : 0), 0) },
  };
}
