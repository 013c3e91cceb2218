import { candidateProviders } from './goodput.js';
import { overlaps, unionOfColumns, type Intervals } from './intervals.js';
import type { CheckInput } from './types.js';
import type { WaitWindow } from './windows.js';

/**
 * Per provider, when a client request that it could serve was open (sent, not yet answered):
 * the times the router had something it could have sent there.
 */
export function demandByProvider(input: Pick<CheckInput, 'outcomes' | 'scenario'>): Map<string, Intervals> {
  // Each provider's spans as two columns of numbers, not a pair array per request and provider.
  const spans = new Map<string, SpanColumns>();
  const byModel = new Map<string, SpanColumns[]>();
  for (const o of input.outcomes) {
    let columns = byModel.get(o.model);
    if (!columns) {
      columns = candidateProviders(o.model, input.scenario).map((p) => {
        let c = spans.get(p);
        if (!c) spans.set(p, (c = new SpanColumns()));
        return c;
      });
      byModel.set(o.model, columns);
    }
    const from = o.sentAt;
    const to = o.endAt;
    for (const c of columns) c.push(from, to);
  }
  return new Map([...spans].map(([p, c]) => [p, unionOfColumns(c.starts, c.ends, c.length)]));
}

/** Growable start and end columns. */
class SpanColumns {
  starts = new Float64Array(1024);
  ends = new Float64Array(1024);
  length = 0;
  push(start: number, end: number): void {
    if (this.length === this.starts.length) {
      const starts = new Float64Array(this.length * 2);
      const ends = new Float64Array(this.length * 2);
      starts.set(this.starts);
      ends.set(this.ends);
      this.starts = starts;
      this.ends = ends;
    }
    this.starts[this.length] = start;
    this.ends[this.length++] = end;
  }
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
