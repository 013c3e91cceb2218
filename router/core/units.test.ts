import { describe, expect, it } from 'vitest';
import { backoffMs } from './backoff.js';
import { CapacityBook } from './capacity.js';
import { classifyResponse } from './classify.js';
import { attemptTimeoutMs } from './attempt-timeout.js';
import { createDeadline, remainingMs, waitFits } from './deadline.js';
import { RetryBudget } from './retry-budget.js';
import { createRng } from './rng.js';
import { rankCandidates, rankOrder, type CandidateFacts } from './scoring.js';

describe('backoffMs', () => {
  it('grows exponentially with full jitter between half and the ceiling, capped', () => {
    const rng = createRng(1);
    for (let n = 0; n < 10; n++) {
      const ceiling = Math.min(5000, 200 * 2 ** n);
      for (let i = 0; i < 20; i++) {
        const d = backoffMs(n, { baseMs: 200, maxMs: 5000 }, rng);
        expect(d).toBeGreaterThanOrEqual(ceiling / 2);
        expect(d).toBeLessThanOrEqual(ceiling);
      }
    }
  });

  it('is replayable from the seed', () => {
    const a = createRng(9);
    const b = createRng(9);
    expect(backoffMs(3, { baseMs: 100, maxMs: 5000 }, a)).toBe(backoffMs(3, { baseMs: 100, maxMs: 5000 }, b));
  });
});

describe('deadline', () => {
  it('gives each attempt min(attempt timeout, time left)', () => {
    const d = createDeadline(1000, 5000);
    const at = (now: number) =>
      attemptTimeoutMs({ timeoutMs: 3000, remainingMs: remainingMs(d, now), usualMs: undefined, canFailOver: true });
    expect(at(1000)).toBe(3000);
    expect(at(4500)).toBe(1500);
    expect(at(7000)).toBe(0);
    expect(remainingMs(d, 7000)).toBe(0);
  });

  it('lets a wait happen only if an attempt still fits after it', () => {
    const d = createDeadline(0, 5000);
    expect(waitFits(d, 1000, 3000, 500)).toBe(true);
    expect(waitFits(d, 1000, 3600, 500)).toBe(false);
  });
});

describe('RetryBudget', () => {
  it('allows the minimum, then a share of requests, per window', () => {
    const b = new RetryBudget({ ratio: 0.5, minPerWindow: 2, windowMs: 1000 });
    for (let i = 0; i < 10; i++) b.onRequest(0);
    const taken = Array.from({ length: 10 }, () => b.tryTake(0)).filter(Boolean).length;
    expect(taken).toBe(7);
    expect(b.tryTake(500)).toBe(false);
    expect(b.tryTake(1100)).toBe(true);
  });
});

describe('CapacityBook', () => {
  const signals = (remaining: number, resetInMs: number, refill: 'continuous' | 'window', now: number) => ({
    refill,
    requests: { limit: 60, remaining, resetAt: now + resetInMs },
  });

  it('keeps a target empty until its reset when the refill is a window', () => {
    const c = new CapacityBook();
    c.observe('t', signals(0, 30_000, 'window', 0), 0);
    expect(c.availableAt('t', 0, 0)).toBe(30_000);
    expect(c.headroom('t', 10_000)).toBe(0);
    expect(c.availableAt('t', 0, 30_000)).toBe(30_000);
  });

  it('expects one unit back per limit/window when the refill is continuous, with a safety margin', () => {
    const c = new CapacityBook();
    c.observe('t', signals(0, 60_000, 'continuous', 0), 0);
    expect(c.availableAt('t', 0, 0)).toBeCloseTo(1050, 0);
  });

  it('counts requests in flight against what is left', () => {
    const c = new CapacityBook();
    c.observe('t', signals(2, 60_000, 'window', 0), 0);
    c.reserve('t', 0);
    expect(c.availableAt('t', 0, 0)).toBe(0);
    c.reserve('t', 0);
    expect(c.availableAt('t', 0, 0)).toBe(60_000);
    c.release('t', 0);
    expect(c.availableAt('t', 0, 0)).toBe(0);
  });

  it('knows nothing of an unseen target', () => {
    expect(new CapacityBook().availableAt('x', 1000, 5)).toBe(5);
  });
});

describe('classifyResponse', () => {
  const s = (over: object = {}) => ({ refill: 'unknown' as const, ...over });
  it.each([
    [200, s(), '', 'ok'],
    [429, s({ waitMs: 1000 }), '', 'rate_limited'],
    [429, s({ quotaExhausted: true }), '', 'quota_exhausted'],
    [402, s(), '', 'quota_exhausted'],
    [529, s(), '', 'overloaded'],
    [503, s(), '', 'overloaded'],
    [500, s({ overloaded: true }), '', 'overloaded'],
    [500, s(), '', 'server_error'],
    [502, s(), '<html>', 'server_error'],
    [401, s(), '', 'auth_error'],
    [400, s(), '{"error":{"status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}}', 'auth_error'],
    [404, s(), '', 'not_found'],
    [400, s(), '{"error":{"message":"Model Not Exist"}}', 'not_found'],
    [400, s(), '{"error":{"message":"max_tokens: Field required"}}', 'client_error'],
    [413, s(), '', 'client_error'],
  ])('reads %d as %s', (status, signals, body, kind) => {
    expect(classifyResponse(status, signals, body).kind).toBe(kind);
  });
});

describe('rankCandidates', () => {
  const base: CandidateFacts = {
    target: 'a',
    costUsd: 1,
    ttftMs: 100,
    latencyMs: 1000,
    reliability: 1,
    quality: 0.5,
    headroom: 1,
  };
  it('prefers the cheaper candidate when cost is what matters', () => {
    const ranked = rankCandidates(
      [
        { ...base, target: 'dear', costUsd: 10 },
        { ...base, target: 'cheap', costUsd: 1 },
      ],
      { cost: 1, latency: 0, reliability: 0, quality: 0, capacity: 0 },
      () => 0,
    );
    expect(ranked.map((r) => r.target)).toEqual(['cheap', 'dear']);
    expect(ranked[0]!.parts.cost).toBe(1);
  });

  it('sinks a candidate with no capacity left and explains why', () => {
    const ranked = rankCandidates(
      [
        { ...base, target: 'empty', headroom: 0 },
        { ...base, target: 'roomy', headroom: 0.8 },
      ],
      { cost: 1, latency: 1, reliability: 2, quality: 1, capacity: 2 },
      () => 0,
    );
    expect(ranked[0]!.target).toBe('roomy');
    expect(ranked[1]!.parts.capacity).toBe(0);
  });

  it('breaks ties with the seeded draw', () => {
    let i = 0;
    const draws = [0.9, 0.1];
    const ranked = rankCandidates(
      [
        { ...base, target: 'x' },
        { ...base, target: 'y' },
      ],
      { cost: 1, latency: 1, reliability: 1, quality: 1, capacity: 1 },
      () => draws[i++]!,
    );
    expect(ranked.map((r) => r.target)).toEqual(['y', 'x']);
  });

  it('orders as the engine sort of the comparator does, ties, NaN and infinities included', () => {
    // The ranking before it skipped Array.prototype.sort: every field scored, then sorted.
    const reference = (facts: CandidateFacts[], w: Parameters<typeof rankCandidates>[1], draws: number[]) => {
      const inverse = (values: number[], v: number) => {
        const min = Math.min(...values);
        const max = Math.max(...values);
        return max === min ? 1 : (max - v) / (max - min);
      };
      const costs = facts.map((f) => f.costUsd);
      const latencies = facts.map((f) => f.ttftMs + f.latencyMs);
      const total = w.cost + w.latency + w.reliability + w.quality + w.capacity || 1;
      return facts
        .map((f, i) => {
          const parts = {
            cost: inverse(costs, f.costUsd),
            latency: inverse(latencies, f.ttftMs + f.latencyMs),
            reliability: f.reliability,
            quality: f.quality,
            capacity: f.headroom,
          };
          const score =
            (w.cost * parts.cost +
              w.latency * parts.latency +
              w.reliability * parts.reliability +
              w.quality * parts.quality +
              w.capacity * parts.capacity) /
            total;
          return { target: f.target, score, parts, t: draws[i]! };
        })
        .sort((a, b) => b.score - a.score || a.t - b.t)
        .map(({ target, score, parts }) => ({ target, score, parts }));
    };
    const rng = createRng(7);
    const pick = <T>(xs: T[]) => xs[Math.floor(rng.next() * xs.length)]!;
    for (let round = 0; round < 3000; round++) {
      const n = 1 + Math.floor(rng.next() * 6);
      const odd = round % 5 === 0;
      const facts: CandidateFacts[] = Array.from({ length: n }, (_, i) => ({
        target: `t${i}`,
        costUsd: pick([1, 2, 2, 3, ...(odd ? [NaN, Infinity] : [])]),
        ttftMs: pick([100, 200, 200]),
        latencyMs: pick([1000, 1000, 2000]),
        reliability: pick([1, 0.5, 0.5, ...(odd ? [NaN] : [])]),
        quality: pick([0.5, 0.9]),
        headroom: pick([0, 0.5, 1]),
      }));
      const draws = Array.from({ length: n }, () => pick([0.1, 0.5, 0.5, 0.9]));
      const w = { cost: pick([0, 1]), latency: pick([0, 1]), reliability: 1, quality: pick([0, 1]), capacity: 2 };
      let d = 0;
      const expected = reference(facts, w, draws);
      expect(rankCandidates(facts, w, () => draws[d++]!)).toEqual(expected);
      d = 0;
      expect(rankOrder(facts, w, () => draws[d++]!).map((i) => facts[i]!.target)).toEqual(
        expected.map((r) => r.target),
      );
    }
  });
});
