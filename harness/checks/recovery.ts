import type { LedgerRow } from '../../simulator/index.js';
import { blockedByProvider } from './blocked-by-provider.js';
import { modelRules } from './served-answers.js';
import { count, isOwnKey, ms, MAX_EVIDENCE, type CheckInput, type CheckResult, type Evidence } from './types.js';

/** The first value of a sorted list at or after `t`, or Infinity. */
function firstAtOrAfter(sorted: readonly number[], t: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length ? sorted[lo]! : Infinity;
}

/**
 * After a provider could serve again, the router came back to it within `expect.recovery.within`.
 * A provider is closed, as the weather has it, while every key of it is inside an announced wait,
 * its quota is spent, or a fault hits all its requests (`blockedByProvider`). A reopening is judged
 * when the router had used the provider before it closed, and clients went on sending requests
 * the provider may serve (by their model) until `within` after it reopened: then an attempt must
 * reach it within `within` of the reopening. Not judged: a provider closed again before `within`
 * with no attempt in between, or one the load stopped needing. None judged: SKIP.
 */
export function checkRecovery(input: CheckInput & { startedAt: number }): CheckResult {
  const { outcomes, rows, scenario } = input;
  const within = scenario.expect.recovery.within;
  const blocked = blockedByProvider(input, input.startedAt);
  const rules = modelRules(scenario);
  const attemptsAt = new Map<string, number[]>();
  for (const r of rows as readonly LedgerRow[]) {
    if (r.endpoint !== 'chat' || !isOwnKey(r.key)) continue;
    const list = attemptsAt.get(r.provider);
    if (list) list.push(r.arrivalAt);
    else attemptsAt.set(r.provider, [r.arrivalAt]);
  }
  for (const list of attemptsAt.values()) list.sort((a, b) => a - b);
  const evidence: Evidence[] = [];
  let judged = 0;
  let late = 0;
  let worst = 0;
  for (const p of scenario.providers) {
    const attempts = attemptsAt.get(p.id) ?? [];
    if (attempts.length === 0) continue;
    const wanted = outcomes.filter((o) => {
      const rule = rules(o.model);
      return rule.any || ('targets' in rule && rule.targets.some((t) => t === p.id || t.startsWith(`${p.id}/`)));
    });
    const lastWanted = wanted.reduce((m, o) => Math.max(m, o.sentAt), -Infinity);
    const closed = blocked.get(p.id) ?? [];
    for (let i = 0; i < closed.length; i++) {
      const [start, end] = closed[i]!;
      if (!Number.isFinite(end) || attempts[0]! >= start || lastWanted < end + within) continue;
      const next = closed[i + 1]?.[0] ?? Infinity;
      const back = firstAtOrAfter(attempts, end);
      if (back > end + within && next <= end + within) continue;
      judged++;
      if (back <= end + within) {
        worst = Math.max(worst, back - end);
        continue;
      }
      late++;
      worst = Math.max(worst, Math.min(back, lastWanted) - end);
      if (evidence.length < MAX_EVIDENCE) {
        const meanwhile = wanted.filter((o) => o.sentAt >= end && o.sentAt < end + within).length;
        evidence.push({
          at: end + within,
          provider: p.id,
          detail: `${p.id} could serve again ${Math.round(end - input.startedAt)} ms into the run (closed for ${ms(end - start)}); ${Number.isFinite(back) ? `the router came back ${ms(back - end)} later` : 'the router never came back'}, past ${within} ms, while clients sent ${count(meanwhile, 'request')} it could serve`,
        });
      }
    }
  }
  return {
    id: 'recovery',
    title: 'Recovery',
    meaning: 'After a provider could serve again, the router came back to it in time instead of abandoning it.',
    verdict: judged === 0 ? 'skip' : late > 0 ? 'fail' : 'pass',
    ...(judged === 0
      ? {
          reason: `no provider the router had used reopened with requests for it still coming ${within} ms later`,
        }
      : {}),
    figure:
      judged === 0
        ? 'no reopening to judge'
        : late > 0
          ? `${late} of ${count(judged, 'reopening')} not used again within ${within} ms`
          : `came back after ${count(judged, 'reopening')}; slowest ${ms(worst)} after it`,
    value: judged === 0 ? null : worst,
    unit: 'ms after reopening',
    threshold: `≤ ${within} ms`,
    violations: late,
    evidence,
    details: { judged, late },
  };
}
