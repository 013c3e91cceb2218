import type { LedgerRow } from '../../simulator/index.js';
import { groupBy, isOwnKey } from './types.js';

/** A wait a provider announced: from the moment its answer left until the wait ends. */
export interface WaitWindow {
  scope: string;
  provider: string;
  key: string;
  model: string | null;
  start: number;
  end: number;
  hintMs: number;
  hintForm: string | null;
  status: number;
  seq: number;
  /** When the attempt that drew it arrived. */
  drawnAt: number;
  correlationId: string | null;
  /** The organisation whose limit it is, when the provider refused for the organisation (the ledger's `scope: org`). */
  org?: string;
  /** On a wait widened to a sibling key of its organisation: that key (the wait was announced on `key`). */
  sibling?: string;
}

/** The key a window applies to: per model (the default, as vendors limit per model) or per key. */
export function scopeOf(r: Pick<LedgerRow, 'provider' | 'key' | 'model'>, scope: 'model' | 'key'): string {
  return scope === 'model' ? `${r.provider}/${r.key}/${r.model ?? ''}` : `${r.provider}/${r.key}`;
}

/**
 * Every announced wait in the ledger: responses that carried a parseable, positive wait hint to a
 * provider's own key. Garbage, zero and negative hints announce nothing.
 */
export function deriveWindows(rows: readonly LedgerRow[], scope: 'model' | 'key'): WaitWindow[] {
  const out: WaitWindow[] = [];
  for (const r of rows) {
    if (r.hintMs === null || !(r.hintMs > 0) || r.firstByteAt === null || !isOwnKey(r.key) || r.endpoint !== 'chat')
      continue;
    out.push({
      scope: scopeOf(r, scope),
      provider: r.provider,
      key: r.key,
      model: r.model,
      start: r.firstByteAt,
      end: r.firstByteAt + r.hintMs,
      hintMs: r.hintMs,
      hintForm: r.hintForm,
      status: r.status,
      seq: r.seq,
      drawnAt: r.arrivalAt,
      correlationId: r.correlationId,
      // A row without a scope (an older ledger) reads as the key's.
      ...(r.scope === 'org' && r.org !== undefined ? { org: r.org } : {}),
    });
  }
  return out;
}

/** A run of overlapping announced waits on one scope: the scope was closed from `start` to `end`. */
export interface WaitPeriod {
  scope: string;
  start: number;
  end: number;
  /** The wait whose end is the period's end. */
  last: WaitWindow;
  waits: number;
}

/** Merges each scope's overlapping waits into periods, in start order. */
export function mergeWaits(windows: readonly WaitWindow[]): WaitPeriod[] {
  const byScope = groupBy(windows, (w) => w.scope);
  const out: WaitPeriod[] = [];
  for (const [scope, list] of byScope) {
    list.sort((a, b) => a.start - b.start);
    let current: WaitPeriod | undefined;
    for (const w of list) {
      if (current && w.start <= current.end) {
        current.waits++;
        if (w.end > current.end) [current.end, current.last] = [w.end, w];
        continue;
      }
      current = { scope, start: w.start, end: w.end, last: w, waits: 1 };
      out.push(current);
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

const byScopeOf = new WeakMap<readonly LedgerRow[], Map<'model' | 'key', Map<string, LedgerRow[]>>>();

/**
 * Chat attempts to own keys, grouped by scope, each group in arrival order. Two checks ask for the
 * same run's grouping: it is made once per rows array and scope (read it, never change it).
 */
export function attemptsByScope(rows: readonly LedgerRow[], scope: 'model' | 'key'): Map<string, LedgerRow[]> {
  let known = byScopeOf.get(rows);
  if (!known) byScopeOf.set(rows, (known = new Map()));
  let map = known.get(scope);
  if (!map) {
    map = groupByScope(rows, scope);
    for (const list of map.values()) list.sort((a, b) => a.arrivalAt - b.arrivalAt);
    known.set(scope, map);
  }
  return map;
}

/** Lets go of the groupings `attemptsByScope` made for `rows`, once the checks are done. */
export function forgetAttemptsByScope(rows: readonly LedgerRow[]): void {
  byScopeOf.delete(rows);
}

/**
 * `groupBy(rows, scopeOf)` over chat attempts to own keys, found through a map per provider, key
 * and model rather than a scope string made for every attempt of a day. Should two scopes read
 * alike as strings (a `/` inside a name), the rows are grouped by the string itself.
 */
function groupByScope(rows: readonly LedgerRow[], scope: 'model' | 'key'): Map<string, LedgerRow[]> {
  const out = new Map<string, LedgerRow[]>();
  const byProvider = new Map<string, Map<string, Map<string | null, LedgerRow[]>>>();
  for (const r of rows) {
    if (r.endpoint !== 'chat') continue;
    const key = r.key;
    if (!isOwnKey(key)) continue;
    const provider = r.provider;
    let byKey = byProvider.get(provider);
    if (!byKey) byProvider.set(provider, (byKey = new Map()));
    let byModel = byKey.get(key);
    if (!byModel) byKey.set(key, (byModel = new Map()));
    const model = scope === 'model' ? r.model : null;
    let list = byModel.get(model);
    if (!list) {
      const name = scopeOf(r, scope);
      if (out.has(name))
        return groupBy(rows, (x) => (x.endpoint !== 'chat' || !isOwnKey(x.key) ? undefined : scopeOf(x, scope)));
      byModel.set(model, (list = []));
      out.set(name, list);
    }
    list.push(r);
  }
  return out;
}

/** Index of the first row arriving at or after `t` (binary search over arrival-sorted rows). */
export function firstArrivalAtOrAfter(rows: readonly LedgerRow[], t: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid]!.arrivalAt < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
