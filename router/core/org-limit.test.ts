import { describe, expect, it } from 'vitest';
import { classifyResponse } from './classify.js';
import { decideCircuits, type BreakerSettings } from './circuit-policy.js';
import { CLOSED } from './circuit.js';
import type { AttemptOutcome } from './types.js';

const NOW = 1_000_000;
const B: BreakerSettings = {
  openForMs: 2000,
  quotaOpenForMs: 3_600_000,
  rejectedOpenForMs: 3_600_000,
  maxOpenForMs: 90_000_000,
  maxBackoffOpenForMs: 8000,
  floorMs: 100,
};
const IN_ORG = {
  providerScope: 'provider:p',
  keyScope: 'key:p/a1',
  limitScope: 'limit:p/a1/m',
  orgLimitScope: 'org-limit:p/org-a/m',
};
const decide = (outcome: AttemptOutcome, scopes: typeof IN_ORG | Omit<typeof IN_ORG, 'orgLimitScope'> = IN_ORG) =>
  decideCircuits({ outcome, scopes, probes: ['org-limit:p/org-a/m'], breaker: B, now: NOW, providerCircuit: CLOSED });
const opened = (outcome: AttemptOutcome, scopes?: Parameters<typeof decide>[1]) =>
  decide(outcome, scopes)
    .ops.filter((o) => o.op === 'open')
    .map((o) => o.scope);

const body = (message: string) => JSON.stringify({ error: { message, type: 'requests', code: 'rate_limit_exceeded' } });

describe("an organisation's rate limit", () => {
  it('is read from a 429 that names the organisation, and only from one', () => {
    const s = { refill: 'unknown' as const, waitMs: 400 };
    const org = body('Rate limit reached for gpt-4o-mini in organization org-org-a on requests per min (RPM).');
    const key = body('Rate limit reached for gpt-4o-mini on requests per min (RPM).');
    const groq = body('Rate limit reached for model `llama` in organization `org_x` service tier `on_demand` on …');
    expect(classifyResponse(429, s, org)).toEqual({ kind: 'rate_limited', status: 429, waitMs: 400, orgWide: true });
    expect(classifyResponse(429, s, groq)).toMatchObject({ orgWide: true });
    const anthropic =
      'This request would exceed the rate limit for your organization (3f2a…) of 50 requests per minute.';
    expect(classifyResponse(429, s, anthropic)).toMatchObject({ orgWide: true });
    const anthropicKey = 'This request would exceed the rate limit for this API key of 50 requests per minute.';
    expect(classifyResponse(429, s, anthropicKey)).not.toHaveProperty('orgWide');
    expect(classifyResponse(429, s, key)).toEqual({ kind: 'rate_limited', status: 429, waitMs: 400 });
    expect(classifyResponse(429, { ...s, quotaExhausted: true }, org).kind).toBe('quota_exhausted');
  });

  it("closes the organisation's model limit, which every key of it passes, and the key's own", () => {
    expect(opened({ kind: 'rate_limited', status: 429, waitMs: 400, orgWide: true })).toEqual([
      'org-limit:p/org-a/m',
      'limit:p/a1/m',
    ]);
  });

  it("never widens a key's own limit to its organisation, whose probe it proves healthy", () => {
    const d = decide({ kind: 'rate_limited', status: 429, waitMs: 400 });
    expect(d.ops.filter((o) => o.op === 'open').map((o) => o.scope)).toEqual(['limit:p/a1/m']);
    expect(d.ops).toContainEqual({ op: 'success', scope: 'org-limit:p/org-a/m', probe: true });
  });

  it('closes the key alone when no organisation is configured for it', () => {
    const { orgLimitScope: _, ...alone } = IN_ORG;
    expect(opened({ kind: 'rate_limited', status: 429, waitMs: 400, orgWide: true }, alone)).toEqual(['limit:p/a1/m']);
  });

  it('counts a success on every scope the key passes, its organisation among them', () => {
    expect(decide({ kind: 'ok', status: 200 }).ops).toContainEqual({
      op: 'success',
      scope: 'org-limit:p/org-a/m',
      probe: true,
    });
  });
});
