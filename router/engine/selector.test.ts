import { describe, expect, it } from 'vitest';
import { RouterConfigSchema } from '../config/schema.js';
import { CapacityBook } from '../core/capacity.js';
import { CircuitBook } from '../core/circuit-book.js';
import { Ewma } from '../core/ewma.js';
import type { Rng } from '../core/rng.js';
import { createMemoryStore } from '../state/memory-store.js';
import { Selector, type Selectable } from './selector.js';
import { circuitOptionsOf, selectorSettingsOf } from './settings.js';
import { buildTargets } from './target.js';

// Two keys of one provider serving one model: the same price, speed and reliability, so the
// ranking's seeded tie-breaks alone order them (the lower draw first).

const NOW = 1_000_000;
const config = RouterConfigSchema.parse({
  version: 1,
  providers: [
    {
      id: 'a',
      vendor: 'openai',
      baseUrl: 'http://a.test/v1',
      keys: [
        { id: 'k1', env: 'K1' },
        { id: 'k2', env: 'K2' },
      ],
      models: ['m'],
    },
  ],
});

function setup(draws: number[] = [0.1, 0.9]) {
  const rng: Rng & { drawn: number } = {
    drawn: 0,
    next() {
      return draws[this.drawn++ % draws.length]!;
    },
  };
  const circuits = new CircuitBook(createMemoryStore(), circuitOptionsOf(config), { next: () => 0 });
  const capacity = new CapacityBook();
  const reliability = new Map([['a', new Ewma(20)]]);
  const selector = new Selector({ circuits, capacity, reliability, rng }, selectorSettingsOf(config));
  const targets = buildTargets(config, { K1: 'sk-one-0000', K2: 'sk-two-0000' }).targets;
  return { rng, circuits, capacity, selector, targets };
}

const request = (over: Partial<Selectable> = {}): Selectable => ({
  req: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
  inputTokens: 10,
  attempts: [],
  prefixes: [],
  ...over,
});
const PREFIXES = [{ key: 'p', tokens: 2000 }];

describe('Selector', () => {
  it('ranks the usable targets with one tie-break drawn for each, the lower draw first', () => {
    const { rng, selector, targets } = setup([0.9, 0.1]);
    expect(selector.select(targets, request(), NOW)?.target.id).toBe('a/k2/m');
    expect(rng.drawn).toBe(2);
  });

  it('admits the only usable target without drawing, given the other failed in this request', () => {
    const { rng, selector, targets } = setup();
    const pick = selector.select(targets, request({ excluded: new Set(['a/k1/m']) }), NOW);
    expect(pick).toEqual({ target: targets[1], probes: [] });
    expect(rng.drawn).toBe(0);
  });

  it('finds nothing given every target is paused by an open circuit', () => {
    const { circuits, selector, targets } = setup();
    circuits.open('provider:a', NOW + 5000, NOW, 'overloaded (529)');
    expect(selector.select(targets, request(), NOW)).toBeUndefined();
    expect(selector.earliestAvailable(targets, NOW)).toBe(NOW + 5000);
  });

  it('puts the warm target first given it can serve now, and counts the request warm', () => {
    const { selector, targets } = setup();
    const pick = selector.select(
      targets,
      request({ prefixes: PREFIXES, warm: { target: 'a/k2/m', tokens: 2000 } }),
      NOW,
    );
    expect(pick?.target.id).toBe('a/k2/m');
    expect(selector.affinityCounts).toEqual({ warm: 1, fallback: 0, cold: 0 });
  });

  it('ranks as usual and counts a fallback given the warm target cannot serve now', () => {
    const { circuits, selector, targets } = setup();
    circuits.open('limit:a/k2/m', NOW + 5000, NOW, 'rate limited');
    const pick = selector.select(
      targets,
      request({ prefixes: PREFIXES, warm: { target: 'a/k2/m', tokens: 2000 } }),
      NOW,
    );
    expect(pick?.target.id).toBe('a/k1/m');
    expect(selector.affinityCounts).toEqual({ warm: 0, fallback: 1, cold: 0 });
  });

  it('writes a prefix warm nowhere at the roomiest key, given the ranking prefers a faster key with less input left', () => {
    // k1 answered fast and has 30,000 of 40,000 input tokens left; k2 is unmeasured (assumed slow)
    // and untouched. The ranking puts k1 first, as it put new conversations on the fastest key.
    const { capacity, selector, targets } = setup();
    targets[0]!.ttft.add(100);
    targets[0]!.latency.add(100);
    const tokens = { limit: 40_000, remaining: 30_000, resetAt: NOW + 60_000 };
    capacity.observe('a/k1/m', { refill: 'continuous', tokens }, NOW);
    expect(selector.select(targets, request(), NOW)?.target.id).toBe('a/k1/m');
    expect(selector.select(targets, request({ prefixes: PREFIXES }), NOW)?.target.id).toBe('a/k2/m');
    expect(selector.affinityCounts).toEqual({ warm: 0, fallback: 0, cold: 1 });
  });

  it('takes the probe lease of a circuit whose window ended', () => {
    const { circuits, selector, targets } = setup();
    circuits.open('key:a/k1', NOW - 1, NOW - 2000, 'quota exhausted');
    const pick = selector.select(targets.slice(0, 1), request(), NOW);
    expect(pick?.probes).toEqual(['key:a/k1']);
    expect(circuits.get('key:a/k1')).toMatchObject({ state: 'half-open' });
    selector.releaseProbes(pick!, NOW + 10);
    expect(circuits.get('key:a/k1')).toMatchObject({ state: 'open', until: NOW + 10 });
  });

  it('judges a waiter on unknown limits as unlimited, and on none when the window closes first', () => {
    const { selector, targets } = setup();
    const facts = selector.waitFacts(targets, request(), NOW, 0, 1);
    expect(facts.expectedRequests(NOW + 1000, NOW + 20_000)).toBe(Infinity);
    expect(facts.expectedRequests(NOW + 20_000, NOW + 20_000)).toBe(0);
  });
});
