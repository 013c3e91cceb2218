import { describe, expect, it } from 'vitest';
import { decodeSignals } from './decode.js';

const NOW = Date.UTC(2025, 7, 21, 12, 40, 0);
const h = (headers: Record<string, string>) => (name: string) => headers[name];

describe('decodeSignals', () => {
  it('reads OpenAI headers with Go-duration resets (vendor-facts §1.1)', () => {
    const s = decodeSignals(
      'openai',
      200,
      h({
        'x-ratelimit-limit-requests': '60',
        'x-ratelimit-remaining-requests': '59',
        'x-ratelimit-reset-requests': '1s',
        'x-ratelimit-limit-tokens': '150000',
        'x-ratelimit-remaining-tokens': '149984',
        'x-ratelimit-reset-tokens': '6m0s',
      }),
      undefined,
      NOW,
    );
    expect(s).toEqual({
      refill: 'continuous',
      requests: { limit: 60, remaining: 59, resetAt: NOW + 1000 },
      tokens: { limit: 150000, remaining: 149984, resetAt: NOW + 360_000 },
    });
  });

  it('reads Groq resets with fractions (§5.1)', () => {
    const s = decodeSignals(
      'groq',
      200,
      h({
        'x-ratelimit-remaining-requests': '14370',
        'x-ratelimit-reset-requests': '2m59.56s',
        'x-ratelimit-reset-tokens': '7.66s',
        'x-ratelimit-remaining-tokens': '17997',
      }),
      undefined,
      NOW,
    );
    expect(s.requests!.resetAt).toBe(NOW + 179_560);
    expect(s.tokens!.resetAt).toBe(NOW + 7660);
  });

  it('treats Azure -1 limits as unknown and reads integer-second resets (§2.1)', () => {
    expect(
      decodeSignals(
        'azure-openai',
        200,
        h({ 'x-ratelimit-limit-tokens': '-1', 'x-ratelimit-remaining-tokens': '-1', 'x-ratelimit-reset-tokens': '0' }),
        undefined,
        NOW,
      ).tokens,
    ).toEqual({ limit: undefined, remaining: undefined, resetAt: NOW });
    expect(
      decodeSignals(
        'azure-openai',
        200,
        h({ 'x-ratelimit-remaining-tokens': '1014', 'x-rate-limit-reset-tokens': '55' }),
        undefined,
        NOW,
      ).tokens,
    ).toEqual({ limit: undefined, remaining: 1014, resetAt: NOW + 55_000 });
  });

  it('prefers retry-after-ms to retry-after, as the SDKs do', () => {
    expect(
      decodeSignals('azure-openai', 429, h({ 'retry-after': '1', 'retry-after-ms': '250' }), '', NOW),
    ).toMatchObject({ waitMs: 250, waitSource: 'retry-after-ms' });
    expect(decodeSignals('azure-openai', 429, h({ 'x-ms-retry-after-ms': '1500' }), '', NOW)).toMatchObject({
      waitMs: 1500,
      waitSource: 'x-ms-retry-after-ms',
    });
  });

  it("reads a wait stated only in Azure's message, and calls a day-long one a quota wall (§2.2)", () => {
    const body =
      '{"error":{"code":"429","message":"Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-08-01-preview have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 86400 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit."}}';
    expect(decodeSignals('azure-openai', 429, h({}), body, NOW)).toMatchObject({
      waitMs: 86_400_000,
      waitSource: 'message',
      quotaExhausted: true,
    });
  });

  it('reads Anthropic RFC 3339 resets, the tightest token family, and retry-after (§3.1)', () => {
    const s = decodeSignals(
      'anthropic',
      429,
      h({
        'retry-after': '5',
        'anthropic-ratelimit-requests-limit': '1000',
        'anthropic-ratelimit-requests-remaining': '999',
        'anthropic-ratelimit-requests-reset': '2025-08-21T12:40:01Z',
        'anthropic-ratelimit-input-tokens-limit': '80000',
        'anthropic-ratelimit-input-tokens-remaining': '80000',
        'anthropic-ratelimit-input-tokens-reset': '2025-08-21T12:40:59Z',
        'anthropic-ratelimit-output-tokens-limit': '16000',
        'anthropic-ratelimit-output-tokens-remaining': '0',
        'anthropic-ratelimit-output-tokens-reset': '2025-08-21T12:41:00Z',
      }),
      '{"type":"error","error":{"type":"rate_limit_error","message":"x"}}',
      NOW,
    );
    expect(s).toMatchObject({
      waitMs: 5000,
      waitSource: 'retry-after',
      requests: { remaining: 999, resetAt: NOW + 1000 },
      tokens: { limit: 16000, remaining: 0, resetAt: NOW + 60_000 },
    });
    expect(s.quotaExhausted).toBeUndefined();
  });

  it('recognises Anthropic overload on 529 and on a 500 saying "Overloaded" (§3.2)', () => {
    expect(
      decodeSignals(
        'anthropic',
        529,
        h({ 'x-should-retry': 'true' }),
        '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        NOW,
      ),
    ).toMatchObject({ overloaded: true, shouldRetry: true });
    expect(
      decodeSignals(
        'anthropic',
        500,
        h({}),
        '{"type":"error","error":{"type":"api_error","message":"Overloaded"},"request_id":null}',
        NOW,
      ).overloaded,
    ).toBe(true);
  });

  it('tells the spend-limit 429 from a rate limit (§3.2)', () => {
    expect(
      decodeSignals(
        'anthropic',
        429,
        h({}),
        '{"type":"error","error":{"type":"rate_limit_error","message":"x","details":{"error_code":"enforced_spend_limit_reached"}}}',
        NOW,
      ).quotaExhausted,
    ).toBe(true);
    expect(
      decodeSignals(
        'openai',
        429,
        h({}),
        '{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}',
        NOW,
      ).quotaExhausted,
    ).toBe(true);
  });

  it('reads Gemini RetryInfo from the body and the daily wall from QuotaFailure (§4.2)', () => {
    const body = (delay: string, quotaId: string) =>
      JSON.stringify({
        error: {
          code: 429,
          status: 'RESOURCE_EXHAUSTED',
          details: [
            { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaId }] },
            { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: delay },
          ],
        },
      });
    expect(
      decodeSignals('gemini', 429, h({}), body('47s', 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier'), NOW),
    ).toMatchObject({ waitMs: 47_000, waitSource: 'body' });
    expect(
      decodeSignals('gemini', 429, h({}), body('47s', 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier'), NOW)
        .quotaExhausted,
    ).toBeUndefined();
    expect(
      decodeSignals('gemini', 429, h({}), body('30s', 'GenerateRequestsPerDayPerProjectPerModel-FreeTier'), NOW)
        .quotaExhausted,
    ).toBe(true);
    expect(
      decodeSignals(
        'gemini',
        429,
        h({}),
        '{"error":{"code":429,"message":"Please retry in 53.016342224s.","status":"RESOURCE_EXHAUSTED"}}',
        NOW,
      ).waitMs,
    ).toBeCloseTo(53_016.342, 2);
  });

  it("reads Groq's wait from its message when no header carries it (§5.2)", () => {
    expect(
      decodeSignals(
        'groq',
        429,
        h({}),
        '{"error":{"message":"Rate limit reached … Please try again in 5.289s. Visit …","type":"tokens","code":"rate_limit_exceeded"}}',
        NOW,
      ),
    ).toMatchObject({ waitMs: 5289, waitSource: 'message' });
  });

  it('takes the latest exhausted reset as the wait of a hint-less 429', () => {
    const s = decodeSignals(
      'openai',
      429,
      h({
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': '20s',
        'x-ratelimit-remaining-tokens': '0',
        'x-ratelimit-reset-tokens': '45s',
      }),
      '{}',
      NOW,
    );
    expect(s).toMatchObject({ waitMs: 45_000, waitSource: 'reset-header' });
  });

  it('reads the IETF draft in its -10, -07 and -06 syntaxes (§15)', () => {
    expect(
      decodeSignals(
        'openai-compatible',
        200,
        h({
          ratelimit: '"requests-60s";r=50;t=30, "day";r=900;t=36000',
          'ratelimit-policy': '"requests-60s";q=100;w=60, "day";q=1000;w=86400',
        }),
        undefined,
        NOW,
      ).requests,
    ).toEqual({ limit: 100, remaining: 50, resetAt: NOW + 30_000 });
    expect(
      decodeSignals('openai-compatible', 200, h({ ratelimit: 'limit=100, remaining=50, reset=5' }), undefined, NOW)
        .requests,
    ).toEqual({ limit: 100, remaining: 50, resetAt: NOW + 5000 });
    expect(
      decodeSignals(
        'openai-compatible',
        200,
        h({ 'ratelimit-limit': '100', 'ratelimit-remaining': '7', 'ratelimit-reset': '12' }),
        undefined,
        NOW,
      ).requests,
    ).toEqual({ limit: 100, remaining: 7, resetAt: NOW + 12_000 });
    expect(
      decodeSignals('openai-compatible', 200, h({ ratelimit: 'garbage;;;=' }), undefined, NOW).requests,
    ).toBeUndefined();
  });

  it("reads Mistral's ratelimitbysize headers (§6.1)", () => {
    expect(
      decodeSignals(
        'mistral',
        200,
        h({ 'ratelimitbysize-limit': '500000', 'ratelimitbysize-remaining': '499000', 'ratelimitbysize-reset': '12' }),
        undefined,
        NOW,
      ).tokens,
    ).toEqual({ limit: 500000, remaining: 499000, resetAt: NOW + 12_000 });
  });

  describe('hostile values', () => {
    it.each(['-5', 'soon', '', ' ', 'NaN', 'Infinity', '1e3', '0x10'])('ignores retry-after %j', (value) => {
      expect(decodeSignals('openai', 429, h({ 'retry-after': value }), '{}', NOW).waitMs).toBeUndefined();
    });

    it('reads an HTTP-date in the past as no wait, not a negative one', () => {
      expect(
        decodeSignals('openai', 503, h({ 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }), '{}', NOW).waitMs,
      ).toBe(0);
    });

    it('keeps a wait of three days and calls it a quota wall rather than sleeping', () => {
      expect(decodeSignals('anthropic', 429, h({ 'retry-after': '259200' }), '{}', NOW)).toMatchObject({
        waitMs: 259_200_000,
        quotaExhausted: true,
      });
    });

    it('falls through a garbage retry-after-ms to retry-after', () => {
      expect(
        decodeSignals('openai', 429, h({ 'retry-after-ms': 'later', 'retry-after': '2' }), '{}', NOW),
      ).toMatchObject({ waitMs: 2000, waitSource: 'retry-after' });
    });

    it('ignores garbage rate-limit headers and bodies', () => {
      const s = decodeSignals(
        'openai',
        429,
        h({ 'x-ratelimit-remaining-requests': 'lots', 'x-ratelimit-reset-requests': 'tomorrow' }),
        '<html>nope',
        NOW,
      );
      expect(s.requests).toBeUndefined();
      expect(s.waitMs).toBeUndefined();
    });
  });
});
