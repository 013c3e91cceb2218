import type { LedgerRow } from '../../simulator/index.js';
import type { RunScenario } from '../scenario/schema.js';
import type { ModelRule } from './served-answers.js';
import { deriveWindows, type WaitWindow } from './windows.js';

/** Every provider a request could use was waiting out an announced wait: the earliest end, and who. */
export interface AnnouncedWait {
  endsAt: number;
  providers: string[];
}

interface KeyWaits {
  /** Its waits in start order. */
  waits: WaitWindow[];
  /** When each of its answers that succeeded began (a wait the provider itself ended early), in order. */
  successes: number[];
}

/** Index of the last element of an ascending list at or before `t`, or -1. */
function lastAtOrBefore<T>(list: readonly T[], t: number, at: (item: T) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (at(list[mid]!) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** When a key's announced wait open at `t` ends, or null when none is (a success since it began ends it). */
function openWaitEnd(k: KeyWaits | undefined, t: number): number | null {
  if (!k) return null;
  const s = lastAtOrBefore(k.successes, t, (v) => v);
  const since = s >= 0 ? k.successes[s]! : -Infinity;
  let end: number | null = null;
  for (let i = lastAtOrBefore(k.waits, t, (w) => w.start); i >= 0; i--) {
    const w = k.waits[i]!;
    if (w.start < since) break;
    if (w.end > t && (end === null || w.end > end)) end = w.end;
  }
  return end;
}

/**
 * Whether, at an instant, every provider a model rule allows had each of its keys in a wait it
 * had announced (a hint on a 429 or 503, from the ledger), and when the first of them ends: what
 * a router that answers "come back later" then knows to say. A provider's key is free again
 * when its wait ends or when it answered a success since the wait began.
 */
export function announcedWaitAt(
  rows: readonly LedgerRow[],
  scenario: RunScenario,
): (at: number, rule: ModelRule) => AnnouncedWait | null {
  const byKey = new Map<string, KeyWaits>();
  const keyOf = (provider: string, key: string) => `${provider}\u0000${key}`;
  const entry = (id: string) => {
    let k = byKey.get(id);
    if (!k) byKey.set(id, (k = { waits: [], successes: [] }));
    return k;
  };
  for (const w of deriveWindows(rows, 'key')) entry(keyOf(w.provider, w.key)).waits.push(w);
  for (const r of rows)
    if (r.status >= 200 && r.status < 300 && r.firstByteAt !== null && byKey.has(keyOf(r.provider, r.key)))
      byKey.get(keyOf(r.provider, r.key))!.successes.push(r.firstByteAt);
  for (const k of byKey.values()) {
    k.waits.sort((a, b) => a.start - b.start);
    k.successes.sort((a, b) => a - b);
  }
  return (at, rule) => {
    if (!rule.any && 'unknown' in rule) return null;
    const allowed = rule.any ? null : new Set(rule.targets.map((t) => t.split('/')[0]!));
    let endsAt = Infinity;
    const providers: string[] = [];
    for (const p of scenario.providers) {
      if (allowed && !allowed.has(p.id)) continue;
      let free = Infinity;
      for (const key of p.keys) {
        const end = openWaitEnd(byKey.get(keyOf(p.id, key.id)), at);
        if (end === null) return null;
        free = Math.min(free, end);
      }
      providers.push(p.id);
      endsAt = Math.min(endsAt, free);
    }
    return providers.length > 0 && Number.isFinite(endsAt) ? { endsAt, providers } : null;
  };
}
