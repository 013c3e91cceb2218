import type { z } from 'zod';
import { parseDuration } from '../../simulator/index.js';
import { HarnessError } from '../errors.js';
import type { RunScenarioSchema } from '../scenario/schema.js';

/** A scenario file as written (the parsed YAML before validation fills defaults): what explore varies and saves. */
export type ScenarioDoc = z.input<typeof RunScenarioSchema>;
/** One fault of a scenario file as written. */
export type FaultDoc = NonNullable<ScenarioDoc['faults']>[number];
/** A fault the simulator plays (every kind but a fleet's `redis`). */
export type SimFaultDoc = Exclude<FaultDoc, { kind: 'redis' }>;
/** The simulator faults of a doc. */
export const simFaults = (doc: ScenarioDoc): SimFaultDoc[] =>
  (doc.faults ?? []).filter((f): f is SimFaultDoc => f.kind !== 'redis');
/** One provider of a scenario file as written. */
export type ProviderDoc = ScenarioDoc['providers'][number];

/** The load's duration in ms; a doc without a load (or an unreadable duration) cannot be explored. */
export function loadDurationMs(doc: ScenarioDoc): number {
  const raw = doc.load?.duration;
  const ms = raw === undefined ? undefined : parseDuration(raw);
  if (ms === undefined || ms <= 0)
    throw new HarnessError(
      'HARNESS_SCENARIO_INVALID',
      `Failed to explore scenario "${doc.name}": it has no load duration. Give it a "load" section.`,
    );
  return ms;
}

/** A deep copy of a doc (docs are plain YAML data), so that variants never share nested objects. */
export function copyDoc(doc: ScenarioDoc): ScenarioDoc {
  return structuredClone(doc);
}
