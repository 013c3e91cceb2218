import { describe, expect, it } from 'vitest';
import type { FaultSpec } from '../scenario/schema.js';
import { FaultBook } from './fault-book.js';

const target = { providerId: 'openai', keyId: 'main', model: 'gpt', stream: false };
const status = (over: Partial<FaultSpec> & { match?: FaultSpec['match'] }): FaultSpec =>
  ({ id: 'f', kind: 'status', status: 429, at: 0, match: {}, ...over }) as FaultSpec;

function applied(book: FaultBook, n: number, at = 0): boolean[] {
  return Array.from({ length: n }, () => book.decide(target, at).response !== undefined);
}

describe('FaultBook', () => {
  it('applies only inside its window', () => {
    const book = new FaultBook(1);
    book.add(status({ at: 1000, for: 500 }), 0, 'scenario');
    expect(book.decide(target, 999).response).toBeUndefined();
    expect(book.decide(target, 1000).response).toBeDefined();
    expect(book.decide(target, 1499).response).toBeDefined();
    expect(book.decide(target, 1500).response).toBeUndefined();
  });

  it('applies to the first N matching requests', () => {
    const book = new FaultBook(1);
    book.add(status({ match: { firstN: 2 } }), 0, 'scenario');
    expect(applied(book, 4)).toEqual([true, true, false, false]);
  });

  it('applies to every Nth matching request', () => {
    const book = new FaultBook(1);
    book.add(status({ match: { everyNth: 3 } }), 0, 'scenario');
    expect(applied(book, 6)).toEqual([false, false, true, false, false, true]);
  });

  it('draws probabilities from the seed, replayably', () => {
    const draw = (seed: number) => {
      const book = new FaultBook(seed);
      book.add(status({ match: { probability: 0.3 } }), 0, 'scenario');
      return applied(book, 1000);
    };
    const a = draw(5);
    expect(draw(5)).toEqual(a);
    expect(draw(6)).not.toEqual(a);
    const rate = a.filter(Boolean).length / a.length;
    expect(rate).toBeGreaterThan(0.25);
    expect(rate).toBeLessThan(0.35);
  });

  it('filters on provider, key, model and stream', () => {
    const book = new FaultBook(1);
    book.add(status({ match: { provider: ['anthropic'] } }), 0, 'scenario');
    book.add(status({ id: 'g', match: { key: ['other'] } }), 0, 'scenario');
    book.add(status({ id: 'h', match: { stream: true } }), 0, 'scenario');
    expect(book.decide(target, 0).response).toBeUndefined();
    expect(book.decide({ ...target, stream: true }, 0).response?.spec.id).toBe('h');
  });

  it('lets the first response fault win while latency faults stack', () => {
    const book = new FaultBook(1);
    book.add({ id: 'slow', kind: 'latency', at: 0, match: {}, ttft: { dist: 'fixed', value: 500 } }, 0, 'scenario');
    book.add(status({ id: 'first' }), 0, 'scenario');
    book.add(status({ id: 'second', status: 500 }), 0, 'scenario');
    const d = book.decide(target, 0);
    expect(d.response?.spec.id).toBe('first');
    expect(d.ttft).toEqual({ dist: 'fixed', value: 500 });
    expect(d.ids).toEqual(['slow', 'first']);
  });

  it('skips stream-break faults for requests that do not stream', () => {
    const book = new FaultBook(1);
    book.add(
      { id: 'cut', kind: 'stream-break', at: 0, match: {}, afterChunks: 1, end: 'close', error: 'overloaded' },
      0,
      'scenario',
    );
    expect(book.decide(target, 0).response).toBeUndefined();
    expect(book.decide({ ...target, stream: true }, 0).response?.spec.id).toBe('cut');
  });
});

describe('FaultBook: update and enable', () => {
  it('leaves a disabled fault on the timeline, applying it again once enabled', () => {
    const book = new FaultBook(1);
    book.add(status({}), 0, 'live');
    expect(book.setEnabled('f', false)).toBe(true);
    expect(applied(book, 2)).toEqual([false, false]);
    expect(book.list()[0]).toMatchObject({ enabled: false, seen: 0 });
    book.setEnabled('f', true);
    expect(applied(book, 1)).toEqual([true]);
    expect(book.setEnabled('nope', true)).toBe(false);
  });

  it('replaces a spec and its window, keeping its counters', () => {
    const book = new FaultBook(1);
    book.add(status({}), 0, 'live');
    applied(book, 2);
    expect(book.update('f', status({ status: 503 }), { startAt: 100, endAt: 200 })).toBe(true);
    expect(book.decide(target, 50).response).toBeUndefined();
    expect(book.decide(target, 150).response?.spec).toMatchObject({ status: 503 });
    expect(book.list()[0]).toMatchObject({ applied: 3, startAt: 100, endAt: 200 });
    expect(book.update('nope', status({}))).toBe(false);
  });
});
