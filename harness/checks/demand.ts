import { candidateProviders } from './goodput.js';
import { overlaps, union, type Intervals } from './intervals.js';
import type { CheckInput } from './types.js';
import type { WaitWindow } from './windows.js';

/**
 * Per provider, when a client request that it could serve was open (sent, not yet answered):
 * the times the router had something it could have sent there.
 */
export function demandByProvider(input: Pick<CheckInput, 'outcomes' | 'scenario'>): Map<string, Intervals> {
  const spans = new Map<string, Intervals>();
  const byModel = new Map<string, string[]>();
  for (const o of input.outcomes) {
    let providers = byModel.get(o.model);
    if (!providers) byModel.set(o.model, (providers = candidateProviders(o.model, input.scenario)));
    for (const p of providers) {
      const list = spans.get(p);
      if (list) list.push([o.sentAt, o.endAt]);
      else spans.set(p, [[o.sentAt, o.endAt]]);
    }
  }
  for (const [p, list] of spans) spans.set(p, union(list));
  return spans;
}

/**
 * Whether the router could have sent inside a wait: a client request its provider could serve was
 * open between `from` and `to` (the part of the wait being judged). A wait nobody could break
 * judges nothing.
 */
export function couldSendDuring(
  demand: ReadonlyMap<string, Intervals>,
  w: Pick<WaitWindow, 'provider'>,
  from: number,
  to: number,
): boolean {
  return overlaps(demand.get(w.provider) ?? [], from, to);
}
