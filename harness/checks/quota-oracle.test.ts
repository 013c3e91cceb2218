import { describe, expect, it } from 'vitest';
import { T0, world } from '../../test/helpers/evidence.js';
import { quotaOracle, type OracleRequest } from './quota-oracle.js';

const req = (at: number, p: Partial<OracleRequest> = {}): OracleRequest => ({
  sentAt: T0 + at,
  latestAt: T0 + at + 1500,
  targets: [{ provider: 'openai', model: 'gpt-4o-mini' }],
  tokensIn: 100,
  maxTokens: 0,
  ...p,
});

describe('quotaOracle', () => {
  const limited = world(`faults: []
`).providers;
  it('admits no more than the quotas allow before each deadline', () => {
    const scenario = {
      ...world(),
      providers: [
        {
          ...limited[0]!,
          keys: [limited[0]!.keys[0]!],
          quotas: [{ metric: 'requests' as const, limit: 2, per: 60_000 }],
        },
      ],
    };
    const requests = Array.from({ length: 10 }, (_, i) => req(i * 10));
    expect(quotaOracle(scenario as never, requests, new Map())).toBe(2);
  });

  it('stops short, with no bound, once judging must give up', () => {
    // One request a millisecond for 500 requests sent at once: each comes back every millisecond until placed.
    const scenario = {
      ...world(),
      providers: [
        { ...limited[0]!, keys: [limited[0]!.keys[0]!], quotas: [{ metric: 'requests' as const, limit: 1, per: 1 }] },
      ],
    };
    const requests = Array.from({ length: 500 }, () => req(0));
    let asked = 0;
    const giveUp = () => ++asked >= 3;
    expect(quotaOracle(scenario as never, requests, new Map(), undefined, giveUp)).toBeUndefined();
    expect(asked).toBe(3);
    expect(quotaOracle(scenario as never, requests, new Map(), undefined, () => false)).toBe(500);
  });

  it('counts every key a request could use', () => {
    const scenario = {
      ...world(),
      providers: [{ ...limited[0]!, quotas: [{ metric: 'requests' as const, limit: 2, per: 60_000 }] }],
    };
    // Two keys (each its own organisation) of two requests a minute each.
    expect(
      quotaOracle(
        scenario as never,
        Array.from({ length: 5 }, () => req(0)),
        new Map(),
      ),
    ).toBe(4);
  });

  it('waits for a refill when it fits the deadline', () => {
    const one = {
      ...limited[0]!,
      keys: [limited[0]!.keys[0]!],
      quotas: [{ metric: 'requests' as const, limit: 60, per: 60_000 }],
    };
    const scenario = { ...world(), providers: [one] };
    // A full bucket of 60, then one request a second: 60 at once, and one more within 1.5 s.
    expect(
      quotaOracle(
        scenario as never,
        Array.from({ length: 70 }, () => req(0)),
        new Map(),
      ),
    ).toBe(61);
  });

  it('skips times a fault blocked the provider, and requests larger than a limit', () => {
    const scenario = {
      ...world(),
      providers: [{ ...limited[0]!, quotas: [{ metric: 'tokens' as const, limit: 1000, per: 60_000 }] }],
    };
    expect(quotaOracle(scenario as never, [req(0)], new Map([['openai', [[T0, T0 + 10_000]]]]))).toBe(0);
    expect(quotaOracle(scenario as never, [req(0, { tokensIn: 5000 })], new Map())).toBe(0);
    expect(quotaOracle(scenario as never, [req(0)], new Map())).toBe(1);
  });

  it('finishes at 400 req/s against two 600/min buckets at epoch-millisecond time (a wait of 1e-11 ms once looped for ever)', () => {
    const p = limited[0]!;
    const scenario = {
      ...world(),
      providers: ['a', 'b'].map((id) => ({
        ...p,
        id,
        keys: [{ ...p.keys[0]!, id: `k-${id}` }],
        quotas: [{ metric: 'requests' as const, limit: 600, per: 60_000 }],
      })),
    };
    const start = 1_764_500_000_000.123;
    const requests = Array.from({ length: 2000 }, (_, i) =>
      req(0, {
        sentAt: start + i * 2.5,
        latestAt: start + i * 2.5 + 9500,
        targets: ['a', 'b'].map((provider) => ({ provider, model: p.models[0]! })),
        tokensIn: 50,
      }),
    );
    // Both buckets full (1,200), then 20 a second for the 14.5 s the last deadline allows.
    const admitted = quotaOracle(scenario as never, requests, new Map());
    expect(admitted).toBeGreaterThan(1400);
    expect(admitted).toBeLessThanOrEqual(1200 + 20 * 15);
  });

  describe('with a prompt cache', () => {
    // Anthropic does not count cache reads toward ITPM on Haiku 4.5: one write of the 5,000-token
    // prefix, then 100 tokens a request while it stays warm in the key’s organisation; without it,
    // the bucket of 10,000 and 1.5 s of refill hold two requests.
    const anthropic = world().providers[1]!;
    const scenario = {
      ...world(),
      providers: [{ ...anthropic, quotas: [{ metric: 'input-tokens' as const, limit: 10_000, per: 60_000 }] }],
    };
    const target = [{ provider: 'anthropic', model: 'claude-haiku-4-5' }];
    const requests = Array.from({ length: 20 }, (_, i) =>
      req(i * 10, { targets: target, tokensIn: 5100, conversation: 0 }),
    );

    it('admits what the cached prefix saves, as the request stream allows it', () => {
      expect(quotaOracle(scenario as never, requests, new Map(), { tokens: 5000, cacheControl: true })).toBe(20);
    });

    it('saves nothing without a cache breakpoint where the vendor caches only at one, or without a prefix', () => {
      expect(quotaOracle(scenario as never, requests, new Map(), { tokens: 5000, cacheControl: false })).toBe(2);
      expect(quotaOracle(scenario as never, requests, new Map())).toBe(2);
    });
  });
});
