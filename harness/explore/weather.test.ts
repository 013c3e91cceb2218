import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRunScenario } from '../scenario/parse-run-scenario.js';
import { simFaults, type ScenarioDoc } from './scenario-doc.js';
import { drawWeather, randomWeather } from './weather.js';
import { WEATHER_BOUNDS } from './weather-grammar.js';

const provider = (id: string, vendor: string, model: string, org?: string) => ({
  id,
  vendor,
  models: [model],
  keys: [
    { id: 'main', value: `sk-sim-${id}-1`, ...(org ? { org } : {}) },
    { id: 'spare', value: `sk-sim-${id}-2`, ...(org ? { org } : {}) },
  ],
});

const BASE: ScenarioDoc = {
  version: 1,
  name: 'weather-unit',
  providers: [
    provider('openai', 'openai', 'gpt-4o-mini', 'acme'),
    provider('anthropic', 'anthropic', 'claude-haiku-4-5'),
    provider('groq', 'groq', 'llama-3.1-8b-instant'),
  ],
  faults: [{ id: 'own', kind: 'hang', match: { provider: 'openai' } }],
  load: { duration: '6s', rate: 10, requests: { stream: 0.3 } },
};

const asList = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

describe('randomWeather', () => {
  it('draws a scenario that validates, inside the load and off the sheltered provider, at any seed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const doc = randomWeather(BASE, seed);
        const parsed = parseRunScenario(JSON.stringify(doc));
        expect(parsed.ok ? [] : parsed.issues.map((i) => i.message)).toEqual([]);
        const { shelter, squeezes } = drawWeather(BASE, seed);
        expect(squeezes.length).toBeLessThanOrEqual(WEATHER_BOUNDS.maxSqueezes);
        expect(squeezes.map((q) => q.provider)).not.toContain(shelter);
        const faults = simFaults(doc);
        expect(faults.length).toBeLessThanOrEqual(WEATHER_BOUNDS.maxFaults);
        expect(new Set(faults.map((f) => f.id)).size).toBe(faults.length);
        for (const f of faults) {
          const at = Number(f.at);
          const span = Number(f.for);
          expect(at).toBeGreaterThanOrEqual(0);
          expect(at + span).toBeLessThanOrEqual(6000);
          expect(span).toBeGreaterThanOrEqual(WEATHER_BOUNDS.minForMs);
          expect(f.optional).toBe(true);
          expect(asList(f.match?.provider)).toHaveLength(1);
          expect(asList(f.match?.provider)).not.toContain(shelter);
        }
      }),
      { numRuns: 500, seed: 22 },
    );
  });

  it('draws the same weather from the same seed, and replaces the scenario’s own faults', () => {
    expect(randomWeather(BASE, 7)).toEqual(randomWeather(BASE, 7));
    expect(randomWeather(BASE, 7).faults?.some((f) => f.id === 'own')).toBe(false);
    expect(BASE.faults).toEqual([{ id: 'own', kind: 'hang', match: { provider: 'openai' } }]);
  });

  it('varies the world over seeds: every kind of weather and every scope turns up within 200 seeds', () => {
    const faults = Array.from({ length: 200 }, (_, seed) => simFaults(randomWeather(BASE, seed))).flat();
    const kinds = new Set(faults.map((f) => f.id.replace(/^w\d+-/, '')));
    expect([...kinds].sort()).toEqual(['break', 'burst', 'hang', 'hold', 'lie', 'storm', 'wall']);
    const scopes = new Set(
      faults.map((f) =>
        Array.isArray(f.match?.key) ? 'org' : f.match?.key ? 'key' : f.match?.model ? 'model' : 'provider',
      ),
    );
    expect([...scopes].sort()).toEqual(['key', 'model', 'org', 'provider']);
    expect(faults.some((f) => f.kind === 'status' && f.status === 529)).toBe(true);
    const squeezed = Array.from({ length: 200 }, (_, seed) => drawWeather(BASE, seed).squeezes).flat();
    expect([...new Set(squeezed.map((q) => q.quota.scope))].sort()).toEqual(['key', 'org', 'provider']);
  });

  it('draws no mid-stream break when no request streams', () => {
    const calm = { ...BASE, load: { duration: '6s', rate: 10 } };
    const kinds = Array.from({ length: 100 }, (_, seed) => randomWeather(calm, seed).faults ?? [])
      .flat()
      .map((f) => f.kind);
    expect(kinds).not.toContain('stream-break');
  });

  it('leaves a scenario of one provider calm, the provider being its own shelter', () => {
    const one = { ...BASE, providers: [BASE.providers[0]!] };
    for (let seed = 0; seed < 50; seed++) expect(randomWeather(one, seed)).toEqual({ ...one, faults: [] });
  });

  it('refuses a scenario without a load', () => {
    expect(() => randomWeather({ ...BASE, load: undefined }, 1)).toThrow(/no load duration/);
  });
});
