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
});
