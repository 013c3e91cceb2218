// Over 300 lines on purpose: one golden per vendor and shape, side by side so they read as a table.
import { describe, expect, it } from 'vitest';
import { encodeContext, limitView } from '../../test/helpers/vendor-context.js';
import { anthropicProfile } from './anthropic.js';
import { azureOpenAIProfile } from './azure-openai.js';
import { deepseekProfile } from './deepseek.js';
import { geminiProfile } from './gemini.js';
import { groqProfile } from './groq.js';
import { mistralProfile } from './mistral.js';
import { openaiProfile } from './openai.js';
import { ratelimitDraftProfile } from './ratelimit-draft.js';

// Every expected value below is a real capture or documentation example quoted in
// docs/vendor-facts.md; the section is named in each test.

describe('openai golden', () => {
  it('writes the rate-limit headers of the documentation example (§1.1)', () => {
    const views = [limitView('requests', 60_000, 60, 59, 1000), limitView('tokens', 60_000, 150000, 149984, 360_000)];
    expect(openaiProfile.rateLimitHeaders(views, encodeContext())).toEqual({
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-remaining-requests': '59',
      'x-ratelimit-reset-requests': '1s',
      'x-ratelimit-limit-tokens': '150000',
      'x-ratelimit-remaining-tokens': '149984',
      'x-ratelimit-reset-tokens': '6m0s',
    });
  });

  it('phrases a request too large for TPM as the captured 429 (§1.2)', () => {
    const tokens = limitView('tokens', 60_000, 30000, 30000, 0);
    const e = openaiProfile.error(
      {
        kind: 'request_too_large',
        violation: { rule: tokens.rule, metric: 'tokens', limit: 30000, used: 0, requested: 30601 },
      },
      [tokens],
      encodeContext({ org: 'acme' }),
    );
    expect(e.status).toBe(429);
    expect(JSON.parse(e.body)).toEqual({
      error: {
        message:
          'Request too large for gpt-4o in organization org-acme on tokens per min (TPM): Limit 30000, Requested 30601. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.',
        type: 'tokens',
        param: null,
        code: 'rate_limit_exceeded',
      },
    });
  });

  it('phrases insufficient_quota byte for byte (§1.2)', () => {
    const e = openaiProfile.error({ kind: 'quota_exhausted' }, [], encodeContext());
    expect(e.status).toBe(429);
    expect(e.body).toBe(
      '{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}',
    );
  });

  it('answers overload with 503 service_unavailable_error / server_is_overloaded (§1.2)', () => {
    const e = openaiProfile.error({ kind: 'overloaded' }, [], encodeContext());
    expect(e.status).toBe(503);
    expect(JSON.parse(e.body).error).toMatchObject({ type: 'service_unavailable_error', code: 'server_is_overloaded' });
  });

  it('states the wait of an RPM 429 in its message and reset header', () => {
    const req = limitView('requests', 60_000, 3, 0, 20_000);
    const e = openaiProfile.error(
      {
        kind: 'rate_limited',
        violation: { rule: req.rule, metric: 'requests', limit: 3, used: 3, requested: 1 },
        hint: { ms: 20_000, form: 'vendor' },
      },
      [req],
      encodeContext(),
    );
    expect(JSON.parse(e.body).error.message).toBe(
      'Rate limit reached for gpt-4o in organization org-acme on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s. Visit https://platform.openai.com/account/rate-limits to learn more.',
    );
    expect(e.headers['x-ratelimit-reset-requests']).toBe('20s');
    expect(e.headers['retry-after']).toBeUndefined();
    expect(e.hintSent).toEqual({ ms: 20_000, form: 'reset-header' });
  });
});

describe('azure-openai golden', () => {
  it('phrases the daily token 429 byte for byte, with retry-after and retry-after-ms (§2.2)', () => {
    const tokens = limitView('tokens', 60_000, 8000, 0, 55_000);
    const e = azureOpenAIProfile.error(
      {
        kind: 'rate_limited',
        violation: { rule: tokens.rule, metric: 'tokens', limit: 8000, used: 8000, requested: 10 },
        hint: { ms: 86_400_000, form: 'vendor' },
      },
      [tokens],
      encodeContext({ meta: { apiVersion: '2024-08-01-preview' } }),
    );
    expect(e.body).toBe(
      '{"error":{"code":"429","message":"Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-08-01-preview have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 86400 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit."}}',
    );
    expect(e.headers).toMatchObject({
      'retry-after': '86400',
      'retry-after-ms': '86400000',
      'x-ratelimit-remaining-tokens': '0',
      'policy-id': 'DeploymentRatelimit-Token',
    });
    expect(e.hintSent).toEqual({ ms: 86_400_000, form: 'ms' });
  });

  it('reports -1 limits and no hint given unknownLimits (§2.1)', () => {
    expect(azureOpenAIProfile.rateLimitHeaders([], encodeContext({ options: { unknownLimits: true } }))).toEqual({
      'x-ratelimit-limit-tokens': '-1',
      'x-ratelimit-remaining-tokens': '-1',
      'x-ratelimit-reset-tokens': '0',
    });
  });
});

describe('anthropic golden', () => {
  it('answers 529 exactly as captured: 75 bytes, x-should-retry true, no rate-limit headers (§3.2)', () => {
    const e = anthropicProfile.error(
      { kind: 'overloaded', status: 529 },
      [limitView('requests', 60_000, 50, 10, 1000)],
      encodeContext(),
    );
    expect(e.status).toBe(529);
    expect(e.body).toBe('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
    expect(Buffer.byteLength(e.body)).toBe(75);
    expect(e.headers['x-should-retry']).toBe('true');
    expect(Object.keys(e.headers).filter((h) => h.startsWith('anthropic-ratelimit'))).toEqual([]);
  });

  it('leaks overload as 500 api_error "Overloaded" with a null request_id (§3.2)', () => {
    const e = anthropicProfile.error({ kind: 'overloaded', status: 500 }, [], encodeContext());
    expect(e.status).toBe(500);
    expect(e.body).toBe('{"type":"error","error":{"type":"api_error","message":"Overloaded"},"request_id":null}');
  });

  it('writes RFC 3339 resets for all four families (§3.1)', () => {
    const ctx = encodeContext({ now: Date.UTC(2025, 7, 21, 12, 40, 0) });
    const h = anthropicProfile.rateLimitHeaders(
      [
        limitView('requests', 60_000, 1000, 999, 1000),
        limitView('input-tokens', 60_000, 80000, 80000, 59_000),
        limitView('output-tokens', 60_000, 16000, 16000, 60_000),
      ],
      ctx,
    );
    expect(h).toEqual({
      'anthropic-ratelimit-requests-limit': '1000',
      'anthropic-ratelimit-requests-remaining': '999',
      'anthropic-ratelimit-requests-reset': '2025-08-21T12:40:01Z',
      // The most restrictive token limit in effect; on a tie, the one that resets last.
      'anthropic-ratelimit-tokens-limit': '16000',
      'anthropic-ratelimit-tokens-remaining': '16000',
      'anthropic-ratelimit-tokens-reset': '2025-08-21T12:41:00Z',
      'anthropic-ratelimit-input-tokens-limit': '80000',
      'anthropic-ratelimit-input-tokens-remaining': '80000',
      'anthropic-ratelimit-input-tokens-reset': '2025-08-21T12:40:59Z',
      'anthropic-ratelimit-output-tokens-limit': '16000',
      'anthropic-ratelimit-output-tokens-remaining': '16000',
      'anthropic-ratelimit-output-tokens-reset': '2025-08-21T12:41:00Z',
    });
  });

  it('sends the spend-limit 429 without retry-after, flagged in details (§3.2)', () => {
    const e = anthropicProfile.error(
      { kind: 'quota_exhausted', hint: { ms: 1000, form: 'vendor' } },
      [],
      encodeContext(),
    );
    expect(e.status).toBe(429);
    expect(e.headers['retry-after']).toBeUndefined();
    expect(JSON.parse(e.body).error).toMatchObject({
      type: 'rate_limit_error',
      details: { error_code: 'enforced_spend_limit_reached' },
    });
  });

  it('sends retry-after in whole seconds on a rate-limit 429', () => {
    const req = limitView('requests', 60_000, 50, 0, 1200);
    const e = anthropicProfile.error(
      {
        kind: 'rate_limited',
        violation: { rule: req.rule, metric: 'requests', limit: 50, used: 50, requested: 1 },
        hint: { ms: 1200, form: 'vendor' },
      },
      [req],
      encodeContext(),
    );
    expect(e.headers['retry-after']).toBe('2');
    expect(e.hintSent).toEqual({ ms: 2000, form: 'seconds' });
    expect(JSON.parse(e.body).error.type).toBe('rate_limit_error');
  });
});

describe('gemini golden', () => {
  it('rebuilds the captured free-tier 429: Help, QuotaFailure, RetryInfo "47s", no headers (§4.2)', () => {
    const daily = limitView('requests', 86_400_000, 1500, 0, 47_000);
    const e = geminiProfile.error(
      {
        kind: 'rate_limited',
        violation: { rule: daily.rule, metric: 'requests', limit: 1500, used: 1500, requested: 1 },
        hint: { ms: 46_100, form: 'vendor' },
      },
      [daily],
      encodeContext({ model: 'gemini-2.0-flash' }),
    );
    expect(e.status).toBe(429);
    expect(Object.keys(e.headers)).toEqual(['content-type']);
    const body = JSON.parse(e.body);
    expect(body.error.message).toBe(
      'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
    );
    expect(body.error.status).toBe('RESOURCE_EXHAUSTED');
    expect(body.error.details).toEqual([
      {
        '@type': 'type.googleapis.com/google.rpc.Help',
        links: [
          {
            description: 'Learn more about Gemini API quotas',
            url: 'https://ai.google.dev/gemini-api/docs/rate-limits',
          },
        ],
      },
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [
          {
            quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
            quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier',
            quotaDimensions: { location: 'global', model: 'gemini-2.0-flash' },
          },
        ],
      },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '47s' },
    ]);
    expect(e.hintSent).toEqual({ ms: 47_000, form: 'body' });
  });

  it('drops RetryInfo given hint form none, as Help-only 429s were seen (§4.2)', () => {
    const e = geminiProfile.error({ kind: 'rate_limited', hint: { ms: 5000, form: 'none' } }, [], encodeContext());
    expect(JSON.parse(e.body).error.details.map((d: { '@type': string }) => d['@type'])).not.toContain(
      'type.googleapis.com/google.rpc.RetryInfo',
    );
    expect(e.hintSent).toBeUndefined();
  });

  it('sends no rate-limit headers on success (§4.1)', () => {
    expect(geminiProfile.rateLimitHeaders([limitView('requests', 60_000, 15, 3, 1000)], encodeContext())).toEqual({});
  });
});

describe('groq golden', () => {
  it('writes RPD and TPM headers with Go durations as documented (§5.1)', () => {
    const views = [
      limitView('requests', 86_400_000, 14400, 14370, 179_560),
      limitView('tokens', 60_000, 18000, 17997, 7660),
    ];
    expect(groqProfile.rateLimitHeaders(views, encodeContext())).toEqual({
      'x-ratelimit-limit-requests': '14400',
      'x-ratelimit-remaining-requests': '14370',
      'x-ratelimit-reset-requests': '2m59.56s',
      'x-ratelimit-limit-tokens': '18000',
      'x-ratelimit-remaining-tokens': '17997',
      'x-ratelimit-reset-tokens': '7.66s',
    });
  });

  it('phrases the TPM 429 as captured, with retry-after (§5.2)', () => {
    const tokens = limitView('tokens', 60_000, 15000, 3028, 5289);
    const e = groqProfile.error(
      {
        kind: 'rate_limited',
        violation: { rule: tokens.rule, metric: 'tokens', limit: 15000, used: 11972, requested: 4351 },
        hint: { ms: 5289, form: 'vendor' },
      },
      [tokens],
      encodeContext({ model: 'gemma2-9b-it', org: '01hq' }),
    );
    expect(JSON.parse(e.body)).toEqual({
      error: {
        message:
          'Rate limit reached for model `gemma2-9b-it` in organization `org_01hq` service tier `on_demand` on tokens per minute (TPM): Limit 15000, Used 11972, Requested 4351. Please try again in 5.289s. Visit https://console.groq.com/docs/rate-limits for more information.',
        type: 'tokens',
        code: 'rate_limit_exceeded',
      },
    });
    expect(e.headers['retry-after']).toBe('6');
  });
});

describe('mistral golden', () => {
  it('answers a rate limit with the 2026 code-1300 body (§6.2)', () => {
    expect(mistralProfile.error({ kind: 'rate_limited' }, [], encodeContext()).body).toBe(
      '{"object":"error","message":"Rate limit exceeded","type":"rate_limited","param":null,"code":"1300"}',
    );
  });

  it('answers capacity with 3505 service_tier_capacity_exceeded (§6.2)', () => {
    const e = mistralProfile.error({ kind: 'capacity' }, [], encodeContext());
    expect(e.status).toBe(429);
    expect(e.body).toBe(
      '{"object":"error","message":"Service tier capacity exceeded for this model.","type":"service_tier_capacity_exceeded","param":null,"code":"3505"}',
    );
  });

  it("answers with Kong's bare message given rateLimitBody kong (§6.2)", () => {
    expect(
      mistralProfile.error({ kind: 'rate_limited' }, [], encodeContext({ options: { rateLimitBody: 'kong' } })).body,
    ).toBe('{"message":"Requests rate limit exceeded"}');
  });
});

describe('deepseek golden', () => {
  it('sends no rate-limit headers and holds with blank lines or keep-alive comments (§7)', () => {
    expect(deepseekProfile.rateLimitHeaders([limitView('concurrency', 0, 500, 0, 0)], encodeContext())).toEqual({});
    expect(deepseekProfile.keepAlive(false)).toBe('\n');
    expect(deepseekProfile.keepAlive(true)).toBe(': keep-alive\n\n');
  });

  it('answers the concurrency cap with 429 and insufficient balance with 402 (§7.2)', () => {
    expect(deepseekProfile.error({ kind: 'rate_limited' }, [], encodeContext()).status).toBe(429);
    expect(deepseekProfile.error({ kind: 'quota_exhausted' }, [], encodeContext()).status).toBe(402);
    expect(deepseekProfile.error({ kind: 'overloaded' }, [], encodeContext()).status).toBe(503);
  });
});

describe('ratelimit-draft golden', () => {
  const views = [
    limitView('requests', 60_000, 100, 50, 30_000),
    limitView('requests', 86_400_000, 1000, 900, 36_000_000),
  ];

  it('writes draft -10 Structured-Field lists (§15)', () => {
    expect(ratelimitDraftProfile.rateLimitHeaders(views, encodeContext())).toEqual({
      'ratelimit-policy': '"requests-60s";q=100;w=60, "requests-86400s";q=1000;w=86400',
      ratelimit: '"requests-60s";r=50;t=30, "requests-86400s";r=900;t=36000',
    });
  });

  it('writes draft -07 and -06 syntaxes on request', () => {
    expect(ratelimitDraftProfile.rateLimitHeaders(views, encodeContext({ options: { draft: 'ietf-07' } }))).toEqual({
      ratelimit: 'limit=100, remaining=50, reset=30',
      'ratelimit-policy': '100;w=60, 1000;w=86400',
    });
    expect(ratelimitDraftProfile.rateLimitHeaders(views, encodeContext({ options: { draft: 'ietf-06' } }))).toEqual({
      'ratelimit-limit': '100',
      'ratelimit-remaining': '50',
      'ratelimit-reset': '30',
      'ratelimit-policy': '100;w=60, 1000;w=86400',
    });
  });

  it('answers 429 with a quota-exceeded problem and Retry-After (§15)', () => {
    const e = ratelimitDraftProfile.error(
      {
        kind: 'rate_limited',
        violation: { rule: views[0]!.rule, metric: 'requests', limit: 100, used: 100, requested: 1 },
        hint: { ms: 30_000, form: 'vendor' },
      },
      views,
      encodeContext(),
    );
    expect(e.headers['content-type']).toBe('application/problem+json');
    expect(e.headers['retry-after']).toBe('30');
    expect(JSON.parse(e.body)).toEqual({
      type: 'https://iana.org/assignments/http-problem-types#quota-exceeded',
      title: 'Request cannot be satisfied as assigned quota has been exceeded',
      'violated-policies': ['requests-60s'],
    });
  });

  it("makes a forced 429's RateLimit fields agree with its Retry-After (the window has 50 left, the fault says 1 s)", () => {
    const e = ratelimitDraftProfile.error(
      {
        kind: 'rate_limited',
        violation: { rule: views[0]!.rule, metric: 'requests', limit: 100, used: 50, requested: 1 },
        hint: { ms: 1_000, form: 'vendor' },
      },
      views,
      encodeContext(),
    );
    expect(e.headers['retry-after']).toBe('1');
    // The violated policy reads empty until the wait ends (t=1), not until its window resets (t=30).
    expect(e.headers['ratelimit']).toBe('"requests-60s";r=0;t=1, "requests-86400s";r=900;t=36000');
  });
});
