import type { RunScenario } from '../scenario/schema.js';
import { scopeOf, type WaitWindow } from './windows.js';

/**
 * The announced waits as they apply to every key they cover: each wait on its own key, and each
 * wait the provider announced for an organisation (or project) also on every other key of that
 * organisation on the same provider (same model where waits are judged per model), marked with
 * the sibling's id. A key's organisation is the scenario's `org`, else the key itself, so a key
 * with none shares no wait; keys of another organisation are not covered.
 */
export function widenToOrganisations(
  windows: readonly WaitWindow[],
  scenario: Pick<RunScenario, 'providers'>,
  scope: 'model' | 'key',
): WaitWindow[] {
  const orgKeys = new Map<string, string[]>();
  for (const p of scenario.providers)
    for (const k of p.keys) {
      const id = `${p.id}\u0000${k.org ?? k.id}`;
      orgKeys.set(id, [...(orgKeys.get(id) ?? []), k.id]);
    }
  const out = [...windows];
  for (const w of windows) {
    if (w.org === undefined) continue;
    for (const key of orgKeys.get(`${w.provider}\u0000${w.org}`) ?? []) {
      if (key === w.key) continue;
      out.push({ ...w, scope: scopeOf({ provider: w.provider, key, model: w.model }, scope), sibling: key });
    }
  }
  return out;
}
