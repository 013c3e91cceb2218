import { describe, expect, it } from 'vitest';
import type { ScenarioDoc } from './scenario-doc.js';
import { shrinkFailure, type ShrinkJudge } from './shrink.js';
import { neededProviders, unfaultedProviders } from './shrink-candidates.js';

const provider = (id: string, model: string) => ({
  id,
  vendor: 'openai',
  models: [model],
  keys: [{ id: 'main', value: `sk-sim-${id}` }],
});

const DOC: ScenarioDoc = {
  version: 1,
  name: 'shrink-unit',
  providers: [
    { ...provider('a', 'm-a'), quotas: [{ metric: 'requests', limit: 5, per: '10s', scope: 'key' }] },
    provider('b', 'm-b'),
    provider('c', 'm-c'),
    provider('d', 'm-d'),
  ],
  faults: [
    { id: 'f1', kind: 'hang', at: 500, for: 1000, match: { provider: 'a' } },
    { id: 'f2', kind: 'status', status: 429, at: 1000, for: 1000, match: { provider: 'b' } },
    { id: 'f3', kind: 'hang', at: 7000, for: 1000, match: { provider: 'c' }, optional: true },
  ],
  load: { duration: '8s', rate: 40, requests: { models: ['auto', 'c/m-c', 'm-d'] } },
};

const faultIds = (d: ScenarioDoc) => (d.faults ?? []).map((f) => f.id);
const providerIds = (d: ScenarioDoc) => d.providers.map((p) => p.id);

/** A world fails `x` while fault f2 is in it and provider a still serves beside b. */
const f2WithA: ShrinkJudge = (d) =>
  Promise.resolve({ failed: faultIds(d).includes('f2') && providerIds(d).includes('a') ? ['x', 'y'] : ['y'] });

describe('shrinkFailure', () => {
  it('keeps only what the failure needs: one fault, its provider and one more, a short slow load', async () => {
    const r = await shrinkFailure({ doc: DOC, seed: 9, checkId: 'x', judge: f2WithA, maxSteps: 100 });
    expect(faultIds(r.doc)).toEqual(['f2']);
    expect(providerIds(r.doc)).toEqual(['a', 'b']);
    expect(r.doc.load?.requests?.models).toHaveLength(1);
    // Halving again (to 1 s) would drop f2, which starts at 1 s.
    expect(r.doc.load?.duration).toBe(2000);
    expect(r.doc.load?.rate).toBe(1);
    expect(r.doc.providers[0]!.quotas).toEqual([]);
    expect(r.seed).toBe(9);
    expect(r.steps).toBeGreaterThan(0);
    expect(DOC.faults).toHaveLength(3);
  });

  it('stops after maxSteps runs', async () => {
    let runs = 0;
    const counting: ShrinkJudge = (d, s) => {
      runs++;
      return f2WithA(d, s);
    };
    const r = await shrinkFailure({ doc: DOC, seed: 9, checkId: 'x', judge: counting, maxSteps: 3 });
    expect(r.steps).toBe(3);
    expect(runs).toBe(3);
  });

  it('keeps the last provider no fault touches, so nobody-could-serve is never the shrunk world', async () => {
    const needsF1: ShrinkJudge = (d) => Promise.resolve({ failed: faultIds(d).includes('f1') ? ['x'] : [] });
    const r = await shrinkFailure({ doc: DOC, seed: 2, checkId: 'x', judge: needsF1, maxSteps: 100 });
    expect(faultIds(r.doc)).toEqual(['f1']);
    expect(providerIds(r.doc)).toEqual(['a', 'd']);
  });

  it('returns the scenario unchanged when no simplification keeps the check failing', async () => {
    const onlyWhole: ShrinkJudge = (d) => Promise.resolve({ failed: d === DOC ? ['x'] : [] });
    const r = await shrinkFailure({ doc: DOC, seed: 1, checkId: 'x', judge: onlyWhole });
    expect(r.doc).toBe(DOC);
  });

  it('counts a run that throws as not failing', async () => {
    const throwing: ShrinkJudge = () => Promise.reject(new Error('router would not start'));
    const r = await shrinkFailure({ doc: DOC, seed: 1, checkId: 'x', judge: throwing, maxSteps: 5 });
    expect(r.doc).toBe(DOC);
    expect(r.steps).toBe(5);
  });
});

describe('unfaultedProviders', () => {
  it('names the providers no fault touches; a fault on every provider leaves none', () => {
    expect(unfaultedProviders(DOC)).toEqual(['d']);
    expect(unfaultedProviders({ ...DOC, faults: [{ id: 'all', kind: 'hang' }] })).toEqual([]);
  });
});

describe('neededProviders', () => {
  it('keeps providers a fault names, a pinned provider/model names, or alone offer a pinned model', () => {
    expect([...neededProviders(DOC)].sort()).toEqual(['a', 'b', 'c', 'd']);
    const fewer = { ...DOC, faults: [], load: { duration: '1s', rate: 1, requests: { models: ['auto'] } } };
    expect([...neededProviders(fewer)]).toEqual([]);
  });
});
