import fc from 'fast-check';
import { copyDoc, loadDurationMs, type SimFaultDoc, type ScenarioDoc } from './scenario-doc.js';
import { squeezesArb, weatherArb, type Squeeze } from './weather-grammar.js';

/** A drawn world: which provider stays calm, and the faults on the others. */
export interface DrawnWeather {
  /** The provider no drawn fault touches: someone can always serve. */
  shelter: string;
  faults: SimFaultDoc[];
  /** Tight quotas laid over the other providers' own. */
  squeezes: Squeeze[];
}

/** The fast-check arbitrary of `doc`'s weather: a sheltered provider, then faults on the rest. */
export function weatherOf(doc: ScenarioDoc): fc.Arbitrary<DrawnWeather> {
  const durationMs = loadDurationMs(doc);
  const streams = (doc.load?.requests?.stream ?? 0) > 0;
  const providers = doc.providers;
  return fc.nat({ max: providers.length - 1 }).chain((shelter) => {
    const targets = providers.filter((_, i) => i !== shelter);
    return fc
      .tuple(weatherArb({ targets, durationMs, streams }), squeezesArb(targets))
      .map(([faults, squeezes]) => ({ shelter: providers[shelter]!.id, faults, squeezes }));
  });
}

/** What the seed draws for `doc` (the same seed, the same weather), with fast-check's seeded generation. */
export function drawWeather(doc: ScenarioDoc, seed: number): DrawnWeather {
  return fc.sample(weatherOf(doc), { seed, numRuns: 1 })[0]!;
}

/**
 * `doc` with its simulator faults replaced by weather drawn from `seed` (docs/weather.md): bursts,
 * storms, quota walls, hangs, keep-alive holds, mid-stream breaks and lying hints, each scoped to a
 * provider, key, org or model, inside the load; and tight request quotas (squeezes) per key, org
 * or provider, laid over some providers' own for the whole run. One provider, drawn too, is never faulted, so at
 * every moment some provider can serve an `auto` request; a scenario of one provider stays calm.
 * Drawn faults are `optional`: nothing forces traffic onto them, so one that meets no attempt
 * leaves the run judged, not inconclusive. A fleet's `redis` faults are kept as written.
 */
export function randomWeather(doc: ScenarioDoc, seed: number): ScenarioDoc {
  const { faults, squeezes } = drawWeather(doc, seed);
  const out = copyDoc(doc);
  out.faults = [...(doc.faults ?? []).filter((f) => f.kind === 'redis'), ...faults];
  for (const s of squeezes) {
    const p = out.providers.find((q) => q.id === s.provider)!;
    p.quotas = [...(p.quotas ?? []), s.quota];
  }
  return out;
}
