import { covers, intersect, union, type Intervals } from './intervals.js';
import { attemptsByRequest, type CheckInput, type CheckResult } from './types.js';
import { deriveWindows } from './windows.js';

const BLANKET = new Set(['status', 'hang', 'reset']);

/**
 * When no provider could serve at all: every provider was inside announced waits on all its keys,
 * or under a fault that hit every one of its requests. Requests whose whole deadline fell in such
 * a time had no capacity to be served with and are left out of goodput.
 */
export function noCapacity(input: CheckInput, startedAt: number): Intervals {
  const { rows, scenario } = input;
  const windows = deriveWindows(rows, 'key');
  let all: Intervals | undefined;
  for (const p of scenario.providers) {
    let blocked: Intervals | undefined;
    for (const k of p.keys) {
      const keyWindows = union(windows.filter((w) => w.provider === p.id && w.key === k.id).map((w) => [w.start, w.end] as [number, number]));
      blocked = blocked === undefined ? keyWindows : intersect(blocked, keyWindows);
    }
    const faults: Intervals = scenario.faults
      .filter((f) => BLANKET.has(f.kind) && (!f.match.provider || f.match.provider.includes(p.id)) && !f.match.key && !f.match.model && f.match.firstN === undefined && f.match.everyNth === undefined && (f.match.probability ?? 1) >= 1 && f.match.stream === undefined)
      .map((f) => [startedAt + f.at, f.for === undefined ? Infinity : startedAt + f.at + f.for]);
    const providerBlocked = union([...(blocked ?? []), ...faults]);
    all = all === undefined ? providerBlocked : intersect(all, providerBlocked);
  }
  return all ?? [];
}

/**
 * The share of requests served (complete answers, streams ending in `[DONE]`) among those that
 * could have been: requests whose deadline fell entirely when no provider had capacity, and
 * answers cut by a fault after their first token, are not held against the router.
 */
export function checkGoodput(input: CheckInput & { startedAt: number }): CheckResult {
  const { outcomes, rows, scenario } = input;
  const blocked = noCapacity(input, input.startedAt);
  const attempts = attemptsByRequest(rows);
  const postCommit = new Set(scenario.faults.filter((f) => f.kind === 'stream-break' || f.kind === 'malformed').map((f) => f.id));
  let eligible = 0;
  let served = 0;
  let excludedNoCapacity = 0;
  let excludedCut = 0;
  for (const o of outcomes) {
    if (covers(blocked, o.sentAt, o.sentAt + o.deadlineMs)) {
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
    details: { eligible, served, excludedNoCapacity, excludedCutByFault: excludedCut, noCapacityMs: blocked.reduce((a, [s, e]) => a + (Number.isFinite(e) ? e - s : 0), 0) },
  };
}
