import { describe, expect, it } from 'vitest';
import { isFreeFailover } from './free-failover.js';
import type { AttemptRecord } from './types.js';

const attempt = (over: Partial<AttemptRecord>): AttemptRecord => ({
  target: 'openai/a1/gpt-4o-mini',
  provider: 'openai',
  key: 'a1',
  model: 'gpt-4o-mini',
  startedAt: 0,
  endedAt: 0,
  outcome: 'rate_limited',
  status: 429,
  waitMs: 400,
  ...over,
});

describe('isFreeFailover', () => {
  it('lets a failover after a quota refusal with an announced window go unpaid', () => {
    expect(isFreeFailover(attempt({}), 'anthropic/k1/claude-haiku-4-5')).toBe(true);
    expect(isFreeFailover(attempt({ outcome: 'quota_exhausted' }), 'openai/a2/gpt-4o-mini')).toBe(true);
  });

  it('makes retries, unannounced refusals and failovers after trouble pay', () => {
    expect(isFreeFailover(undefined, 'anthropic/k1/claude-haiku-4-5')).toBe(false);
    expect(isFreeFailover(attempt({}), 'openai/a1/gpt-4o-mini')).toBe(false);
    expect(isFreeFailover(attempt({ waitMs: undefined }), 'anthropic/k1/claude-haiku-4-5')).toBe(false);
    expect(isFreeFailover(attempt({ waitMs: 0 }), 'anthropic/k1/claude-haiku-4-5')).toBe(false);
    for (const outcome of ['overloaded', 'server_error', 'timeout', 'network_error'] as const)
      expect(isFreeFailover(attempt({ outcome, status: 529 }), 'anthropic/k1/claude-haiku-4-5')).toBe(false);
  });
});
