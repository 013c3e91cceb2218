import { blockedByProvider } from './blocked-by-provider.js';
import { union, type Intervals } from './intervals.js';
import type { CheckInput } from './types.js';

/**
 * When a fault of the scenario could hit a provider's attempts, whether or not it hits them all:
 * from its start for its length (for ever without one), a `firstN` fault only until the last of
 * its N attempts ended; then as long as a router may take to learn that it is over. A fault that
 * announces a wait tells it: the waits it announced are in the ledger (see `blockedByProvider`),
 * and the last of them ends when the router may try again. One that announces none is learnt by
 * probing after a backoff, which FO-4 allows `recovery.within`.
 * Faults that only slow answers are left out.
 */
function faultedSpans(input: CheckInput, provider: string, startedAt: number): Intervals {
  const spans: Intervals = [];
  const within = input.scenario.expect.recovery.within;
  for (const f of input.scenario.faults) {
    if (f.kind === 'latency' || (f.match.provider && !f.match.provider.includes(provider))) continue;
    const start = startedAt + f.at;
    let end = f.for === undefined ? Infinity : start + f.for;
    if (f.match.firstN !== undefined) {
      const hit = input.rows.filter((r) => r.faults.includes(f.id));
      if (hit.length >= f.match.firstN) end = Math.min(end, Math.max(...hit.map((r) => r.endAt ?? Infinity)));
    }
    // Whether the router was told when it ends: by the waits the fault's answers announced, as the
    // ledger decoded them (a billing 429 such as OpenAI's insufficient_quota announces none, whatever
    // the scenario's hint says); a fault no attempt met, by what the scenario says it announces.
    const met = input.rows.filter((r) => r.faults.includes(f.id));
    const hinted =
      met.length > 0
        ? met.some((r) => r.hintMs !== null && r.hintMs > 0)
        : f.kind === 'status' && f.hint?.raw === undefined && (f.hint?.after ?? 0) > 0;
    spans.push([start, hinted ? end : end + within]);
  }
  return spans;
}

/**
 * Per provider, when it had capacity no one used: the times it was open (not inside an announced
 * wait on every key, its quota not spent, see `blockedByProvider`; and under no fault that could
 * hit its attempts), less the open spans that ended because the quota was spent. Capacity that
 * other requests used up was no one's to spare: a router that shed a request because what the
 * quota would free before its deadline was already spoken for did not waste it. What is left is
 * capacity still there when a wait or a fault closed the provider, or when the run ended.
 */
export function spareCapacity(input: CheckInput, startedAt: number): Map<string, Intervals> {
  const blocked = blockedByProvider(input, startedAt);
  const spentAt = new Map<string, Set<number>>();
  for (const r of input.rows) {
    const empty = r.quota.emptyForMs;
    if (r.endpoint !== 'chat' || empty === null || !(empty > 0)) continue;
    let set = spentAt.get(r.provider);
    if (!set) spentAt.set(r.provider, (set = new Set()));
    set.add(r.arrivalAt);
  }
  const out = new Map<string, Intervals>();
  for (const p of input.scenario.providers) {
    const closed = union([...(blocked.get(p.id) ?? []), ...faultedSpans(input, p.id, startedAt)]);
    const spent = spentAt.get(p.id);
    const spans: Intervals = [];
    let from = startedAt;
    for (const [a, b] of closed) {
      if (a > from && !spent?.has(a)) spans.push([from, a]);
      from = Math.max(from, b);
    }
    if (Number.isFinite(from)) spans.push([from, Infinity]);
    out.set(p.id, spans);
  }
  return out;
}
