import { closedProviders, waitSpans } from './goodput.js';
import type { Intervals } from './intervals.js';
import type { CheckInput } from './types.js';

/**
 * When each provider could not serve at all: on every key, inside an announced wait or a time the
 * simulator's quota would have refused another request (even if the router, reading headers, never
 * asked); or under a fault that hit every one of its requests. Unlike goodput's bar, this counts the
 * quota the router's own attempts spent: a provider it emptied was closed all the same.
 */
export function blockedByProvider(input: CheckInput, startedAt: number): Map<string, Intervals> {
  const { rows, scenario } = input;
  const spans = waitSpans(rows);
  const sharers = keysSharingQuota(scenario);
  for (const r of rows) {
    const empty = r.quota.emptyForMs;
    if (empty === null || !(empty > 0) || r.endpoint !== 'chat') continue;
    for (const key of sharers.get(`${r.provider}/${r.key}`) ?? [r.key]) {
      const k = `${r.provider}/${key}`;
      const list = spans.get(k);
      if (list) list.push([r.arrivalAt, r.arrivalAt + empty]);
      else spans.set(k, [[r.arrivalAt, r.arrivalAt + empty]]);
    }
  }
  return closedProviders(scenario, spans, startedAt);
}

/**
 * For each provider key, the keys whose quota runs out with it: all of the provider's keys when
 * every limit is provider-wide, the keys of its organisation when no limit is per key, else itself.
 */
function keysSharingQuota(scenario: CheckInput['scenario']): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const p of scenario.providers) {
    const scopes = p.quotas.filter((q) => q.metric !== 'concurrency').map((q) => q.scope ?? 'org');
    for (const k of p.keys) {
      const org = k.org ?? k.id;
      const keys =
        scopes.length > 0 && scopes.every((s) => s === 'provider')
          ? p.keys
          : !scopes.includes('key')
            ? p.keys.filter((x) => (x.org ?? x.id) === org)
            : [k];
      out.set(
        `${p.id}/${k.id}`,
        keys.map((x) => x.id),
      );
    }
  }
  return out;
}
