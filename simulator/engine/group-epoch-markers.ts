import { planEpochMarkers, type EpochMarker } from '../quota/shared-plan.js';
import type { Scenario } from '../scenario/schema.js';
import { createProviderRuntime } from './provider-runtime.js';

/**
 * The epoch marker of every hash tag a scenario's keys can reach, for a group sharing its quotas
 * under `prefix` from `now`: without them, the quota script reads the counters as lost.
 */
export function groupEpochMarkers(scenario: Scenario, prefix: string, now: number): EpochMarker[] {
  return scenario.providers.flatMap((spec, i) => {
    const p = createProviderRuntime(spec, i);
    const provider = { id: p.id, rules: p.quota.rules, countRejected: p.accounting.countRejected };
    const callers = spec.keys.map((k) => ({ keyId: k.id, org: k.org ?? k.id }));
    return planEpochMarkers(prefix, provider, callers, now);
  });
}
