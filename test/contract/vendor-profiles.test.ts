// Over 300 lines on purpose: every vendor's contract sits in one table, a row per profile, so a new
// profile shows at a glance how its errors, waits and headers differ from the others'.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { VENDOR_IDS, type VendorId } from '../../simulator/index.js';
import { countPromptTokens } from '../../simulator/engine/tokens.js';
import { CHAT_PROMPT, chatCall } from '../helpers/scenario.js';
import { goDurationMs, runVendorProfileContract, type VendorContract } from './vendor-profile.case.js';

// Section numbers (§) refer to docs/vendor-facts.md.

/** §1.2: `{"error":{"message","type","param","code"}}`, shared by the OpenAI-compatible vendors. */
const OPENAI = z.object({
  error: z.object({ message: z.string().min(1), type: z.string().min(1), code: z.string().nullable().optional() }),
});
/** §2.2: `{"error":{"code":"429","message":…}}`, the code a string and no type. */
const AZURE = z.object({ error: z.object({ code: z.string().min(1), message: z.string().min(1) }) });
/** §3.2: `{"type":"error","error":{"type","message"},"request_id"}`. */
const ANTHROPIC = z.object({
  type: z.literal('error'),
  error: z.object({ type: z.string().min(1), message: z.string().min(1) }),
  request_id: z.string().nullable(),
});
/** §4.2: google.rpc.Status, `{"error":{"code":429,"message","status":"RESOURCE_EXHAUSTED"}}`. */
const GOOGLE = z.object({
  error: z.object({ code: z.number().int(), message: z.string().min(1), status: z.string() }),
});
/** §6.2: `{"object":"error","message","type","param","code"}`; a 422's message is the detail list. */
const MISTRAL = z.object({
  object: z.literal('error'),
  message: z.union([z.string().min(1), z.object({ detail: z.array(z.unknown()).min(1) })]),
  type: z.string().min(1),
  param: z.null(),
  code: z.string().nullable(),
});
/** Mistral's gateway refuses a credential before the API sees it (simulator capture shape). */
const MISTRAL_GATEWAY = z.object({ message: z.literal('Unauthorized'), request_id: z.string().min(1) });
/** §15: RFC 9457 problem details with the draft's problem types. */
const PROBLEM = z.object({
  type: z.string().startsWith('https://iana.org/assignments/http-problem-types#'),
  title: z.string().min(1),
  'violated-policies': z.array(z.string()),
});

/** §14.2: Bedrock's `{"message"}` body; the exception is named in `x-amzn-ErrorType`. */
const BEDROCK = z.object({ message: z.string().min(1) });
/** §13.2: `{"error":{"code":<int>,"message"}}` (with `metadata` on some). */
const OPENROUTER = z.object({ error: z.object({ code: z.number().int(), message: z.string().min(1) }) });
/** §11.2: Cerebras's flat body, the OpenAI error fields without a wrapper. */
const CEREBRAS = z.object({
  message: z.string().min(1),
  type: z.string().min(1),
  param: z.string().nullable(),
  code: z.string().nullable(),
});
/** §12.2: xAI's flat `{"code","error"}`, gRPC status descriptions as codes. */
const XAI = z.object({ code: z.string().min(1), error: z.string().min(1) });

/**
 * What one contract chat call costs Mistral's token window, counted as the simulator counts it
 * (o200k_base with OpenAI's chat framing, docs/decisions/token-counting.md), not as a router
 * estimates it from characters.
 */
const MISTRAL_CALL_TOKENS = countPromptTokens('mistral', CHAT_PROMPT, 1);

const seconds = (text: string | undefined) => (text === undefined ? undefined : Number(text) * 1000);

/**
 * Each vendor's contract. A `Record` over VendorId, so a profile registered without an entry fails
 * type-checking, and the runner fails at run time.
 */
const CONTRACTS: Record<VendorId, VendorContract> = {
  openai: {
    model: 'gpt-4o-mini',
    quotas: '[{ metric: requests, limit: 3, per: 1m }, { metric: tokens, limit: 100000, per: 1m }]',
    admitted: 3,
    call: (o) => chatCall('openai', o),
    keyHeader: 'authorization',
    modelInPath: false,
    dialect: 'openai',
    missingKey: { status: 401, envelope: OPENAI },
    wrongKey: { status: 401, envelope: OPENAI },
    unknownModel: { status: 404, envelope: OPENAI },
    badJson: { status: 400, envelope: OPENAI },
    // §1.1: OpenAI's header table lists no retry-after; the wait is the reset of the spent limit.
    quota: {
      status: 429,
      envelope: OPENAI,
      hintForm: 'reset-header',
      announced: (r) => goDurationMs(r.headers['x-ratelimit-reset-requests']),
    },
    rateLimitHeaders: ['x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests'],
    requestIdHeader: 'x-request-id',
  },
  'azure-openai': {
    model: 'gpt-4o-mini',
    quotas: '[{ metric: requests, limit: 3, per: 10s }, { metric: tokens, limit: 100000, per: 1m }]',
    admitted: 3,
    call: (o) => chatCall('azure-openai', o),
    keyHeader: 'api-key',
    modelInPath: true,
    dialect: 'openai',
    missingKey: { status: 401, envelope: AZURE },
    wrongKey: { status: 401, envelope: AZURE },
    unknownModel: { status: 404, envelope: AZURE },
    // Validation errors pass through from the OpenAI service in its envelope.
    badJson: { status: 400, envelope: OPENAI },
    // §2.1: retry-after-ms first (retry-after and the message say it too).
    quota: { status: 429, envelope: AZURE, hintForm: 'ms', announced: (r) => Number(r.headers['retry-after-ms']) },
    // §2.1: no request reset header; the token reset is in whole seconds.
    rateLimitHeaders: ['x-ratelimit-remaining-requests', 'x-ratelimit-remaining-tokens', 'x-ratelimit-reset-tokens'],
    requestIdHeader: 'apim-request-id',
  },
  anthropic: {
    model: 'claude-haiku-4-5',
    quotas: '[{ metric: requests, limit: 3, per: 1m }, { metric: input-tokens, limit: 100000, per: 1m }]',
    admitted: 3,
    call: (o) => chatCall('anthropic', o),
    keyHeader: 'x-api-key',
    modelInPath: false,
    dialect: 'anthropic',
    missingKey: { status: 401, envelope: ANTHROPIC },
    wrongKey: { status: 401, envelope: ANTHROPIC },
    unknownModel: { status: 404, envelope: ANTHROPIC },
    badJson: { status: 400, envelope: ANTHROPIC },
    // §3.1: retry-after in integer seconds on a 429.
    quota: {
      status: 429,
      envelope: ANTHROPIC,
      hintForm: 'seconds',
      announced: (r) => seconds(r.headers['retry-after']),
    },
    rateLimitHeaders: [
      'anthropic-ratelimit-requests-limit',
      'anthropic-ratelimit-requests-remaining',
      'anthropic-ratelimit-requests-reset',
    ],
    requestIdHeader: 'request-id',
  },
  gemini: {
    model: 'gemini-2.5-flash',
    quotas: '[{ metric: requests, limit: 3, per: 1m }]',
    admitted: 3,
    call: (o) => chatCall('gemini', o),
    keyHeader: 'x-goog-api-key',
    modelInPath: true,
    dialect: 'gemini',
    // §4.2: 403 PERMISSION_DENIED without a key; an invalid key is a 400 (API_KEY_INVALID), not a 401.
    missingKey: { status: 403, envelope: GOOGLE },
    wrongKey: { status: 400, envelope: GOOGLE },
    unknownModel: { status: 404, envelope: GOOGLE },
    badJson: { status: 400, envelope: GOOGLE },
    // §4.1: no headers at all; the wait is google.rpc.RetryInfo.retryDelay in the body.
    quota: {
      status: 429,
      envelope: GOOGLE,
      hintForm: 'body',
      announced(r) {
        const details: Array<{ '@type': string; retryDelay?: string }> = JSON.parse(r.body).error.details ?? [];
        const delay = details.find((d) => d['@type'].endsWith('google.rpc.RetryInfo'))?.retryDelay;
        return delay === undefined ? undefined : Number(delay.replace(/s$/, '')) * 1000;
      },
    },
    rateLimitHeaders: [],
    // §4.1 documents no request-id header.
    requestIdHeader: null,
  },
  groq: {
    model: 'llama-3.1-8b-instant',
    quotas: '[{ metric: requests, limit: 3, per: 1m }, { metric: tokens, limit: 100000, per: 1m }]',
    admitted: 3,
    call: (o) => chatCall('groq', o),
    keyHeader: 'authorization',
    modelInPath: false,
    dialect: 'openai',
    missingKey: { status: 401, envelope: OPENAI },
    wrongKey: { status: 401, envelope: OPENAI },
    unknownModel: { status: 404, envelope: OPENAI },
    badJson: { status: 400, envelope: OPENAI },
    // §5.1: retry-after in seconds, only on 429 (the message states it too).
    quota: { status: 429, envelope: OPENAI, hintForm: 'seconds', announced: (r) => seconds(r.headers['retry-after']) },
    rateLimitHeaders: ['x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests'],
    requestIdHeader: 'x-request-id',
  },
  mistral: {
    model: 'mistral-small-latest',
    // §6.1: only the token window publishes a reset, so the contract spends tokens; a spent
    // request limit announces no wait at all (§6.2, "none found").
    // The window holds exactly three calls, so the fourth is refused.
    quotas: `[{ metric: requests, limit: 100, per: 1m }, { metric: tokens, limit: ${3 * MISTRAL_CALL_TOKENS}, per: 1m }]`,
    admitted: 3,
    call: (o) => chatCall('mistral', o),
    keyHeader: 'authorization',
    modelInPath: false,
    dialect: 'openai',
    missingKey: { status: 401, envelope: MISTRAL_GATEWAY },
    wrongKey: { status: 401, envelope: MISTRAL_GATEWAY },
    // §6.2: an unknown model is a 400 invalid_model (code 1500), not a 404.
    unknownModel: { status: 400, envelope: MISTRAL },
    // §6.2: validation failures are 422s in Mistral's envelope.
    badJson: { status: 422, envelope: MISTRAL },
    quota: {
      status: 429,
      envelope: MISTRAL,
      hintForm: 'reset-header',
      announced: (r) => seconds(r.headers['ratelimitbysize-reset']),
    },
    rateLimitHeaders: ['ratelimitbysize-limit', 'ratelimitbysize-remaining', 'ratelimitbysize-reset'],
    requestIdHeader: 'x-kong-request-id',
  },
  deepseek: {
    model: 'deepseek-chat',
    // §7.3: a per-account concurrency cap, no request or token windows.
    quotas: '[{ metric: concurrency, limit: 3 }]',
    admitted: 3,
    call: (o) => chatCall('deepseek', o),
    keyHeader: 'authorization',
    modelInPath: false,
    dialect: 'openai',
    missingKey: { status: 401, envelope: OPENAI },
    wrongKey: { status: 401, envelope: OPENAI },
    // §7.2: no 404 in DeepSeek's list; an unknown model is a 400.
    unknownModel: { status: 400, envelope: OPENAI },
    badJson: { status: 400, envelope: OPENAI },
    // §7.1: no rate-limit headers and no retry hint of any kind.
    quota: { status: 429, envelope: OPENAI, hintForm: null, announced: (r) => seconds(r.headers['retry-after']) },
    rateLimitHeaders: [],
    requestIdHeader: 'x-ds-trace-id',
  },
  'ratelimit-draft': {
    model: 'generic-1',
    quotas: '[{ metric: requests, limit: 3, per: 1m }]',
    admitted: 3,
    call: (o) => chatCall('ratelimit-draft', o),
    keyHeader: 'authorization',
    modelInPath: false,
    dialect: 'openai',
    missingKey: { status: 401, envelope: OPENAI },
    wrongKey: { status: 401, envelope: OPENAI },
    unknownModel: { status: 404, envelope: OPENAI },
    badJson: { status: 400, envelope: OPENAI },
    // §15: Retry-After on a 429, which clients must prefer over RateLimit; problem+json body.
    quota: { status: 429, envelope: PROBLEM, hintForm: 'seconds', announced: (r) => seconds(r.headers['retry-after']) },
    rateLimitHeaders: ['ratelimit', 'ratelimit-policy'],
    requestIdHeader: 'x-request-id',
  },
  bedrock: {
    model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
    quotas: '[{ metric: requests, limit: 3, per: 1m }]',
    admitted: 3,
    call: (o) => chatCall('bedrock', o),
    keyHeader: 'authorization',
    modelInPath: true,
    dialect: 'bedrock',
    // §14.2: a missing token and an unknown key are both 403 (MissingAuthenticationToken, UnrecognizedClient).
    missingKey: { status: 403, envelope: BEDROCK },
    wrongKey: { status: 403, envelope: BEDROCK },
    // An unknown model id is a ValidationException, not a 404.
    unknownModel: { status: 400, envelope: BEDROCK },
    badJson: { status: 400, envelope: BEDROCK },
    // §14.1: ThrottlingException with no rate-limit headers and no Retry-After.
    quota: { status: 429, envelope: BEDROCK, hintForm: null, announced: (r) => seconds(r.headers['retry-after']) },
    rateLimitHeaders: [],
    requestIdHeader: 'x-amzn-requestid',
  },
  'vertex-ai': {
    model: 'gemini-2.5-flash',
    quotas: '[{ metric: requests, limit: 3, per: 1m }]',
    admitted: 3,
    call: (o) => chatCall('vertex-ai', o),
    keyHeader: 'authorization',
    modelInPath: true,
    dialect: 'gemini',
    // OAuth: a missing or invalid token is 401 UNAUTHENTICATED.
    missingKey: { status: 401, envelope: GOOGLE },
    wrongKey: { status: 401, envelope: GOOGLE },
    unknownModel: { status: 404, envelope: GOOGLE },
    badJson: { status: 400, envelope: GOOGLE },
    // §4.2: under dynamic shared quota a 429 carries no RetryInfo (options.retryInfo adds it).
    quota: {
      status: 429,
      envelope: GOOGLE,
      hintForm: null,
      announced: (r) => (/RetryInfo/.test(r.body) ? 0 : undefined),
    },
    rateLimitHeaders: [],
    requestIdHeader: null,
  },
  openrouter: {
    model: 'openai/gpt-4o-mini',
    quotas: '[{ metric: requests, limit: 3, per: 1m }]',
    admitted: 3,
    call: (o) => chatCall('openrouter', o),
    keyHeader: 'authorization',
    modelInPath: false,
    dialect: 'openai',
    missingKey: { status: 401, envelope: OPENROUTER },
    wrongKey: { status: 401, envelope: OPENROUTER },
    // §13.2: an invalid model id is a 400 bad request.
    unknownModel: { status: 400, envelope: OPENROUTER },
    badJson: { status: 400, envelope: OPENROUTER },
    // §13.1: Retry-After (seconds) on a 429 beside X-RateLimit-Reset in epoch ms.
    quota: {
      status: 429,
      envelope: OPENROUTER,
      hintForm: 'seconds',
      announced: (r) => seconds(r.headers['retry-after']),
    },
    // §13.1: the X-RateLimit family rides on 429s only.
    rateLimitHeaders: [],
    requestIdHeader: 'x-generation-id',
  },
  cerebras: {
    model: 'llama3.1-8b',
    quotas: '[{ metric: requests, limit: 3, per: 1m }, { metric: tokens, limit: 100000, per: 1m }]',
    admitted: 3,
    call: (o) => chatCall('cerebras', o),
    keyHeader: 'authorization',
    modelInPath: false,
    dialect: 'openai',
    missingKey: { status: 401, envelope: CEREBRAS },
    wrongKey: { status: 401, envelope: CEREBRAS },
    unknownModel: { status: 404, envelope: CEREBRAS },
    badJson: { status: 400, envelope: CEREBRAS },
    // §11.1: the wait is the reset of the spent family, in float seconds; retry-after is unconfirmed.
    quota: {
      status: 429,
      envelope: CEREBRAS,
      hintForm: 'reset-header',
      announced: (r) => seconds(r.headers['x-ratelimit-reset-requests-day']),
    },
    rateLimitHeaders: [
      'x-ratelimit-limit-requests-day',
      'x-ratelimit-remaining-requests-day',
      'x-ratelimit-reset-requests-day',
      'x-ratelimit-limit-tokens-minute',
      'x-ratelimit-remaining-tokens-minute',
      'x-ratelimit-reset-tokens-minute',
    ],
    requestIdHeader: 'cerebras-request-id',
  },
  together: {
    model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    quotas: '[{ metric: requests, limit: 3, per: 1m }, { metric: tokens, limit: 100000, per: 1m }]',
    admitted: 3,
    call: (o) => chatCall('together', o),
    keyHeader: 'authorization',
    modelInPath: false,
    dialect: 'openai',
    missingKey: { status: 401, envelope: OPENAI },
    wrongKey: { status: 401, envelope: OPENAI },
    unknownModel: { status: 404, envelope: OPENAI },
    badJson: { status: 400, envelope: OPENAI },
    // §9.1: the request reset in seconds; retry-after not found.
    quota: {
      status: 429,
      envelope: OPENAI,
      hintForm: 'reset-header',
      announced: (r) => seconds(r.headers['x-ratelimit-reset']),
    },
    rateLimitHeaders: [
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
      'x-tokenlimit-limit',
      'x-tokenlimit-remaining',
    ],
    requestIdHeader: 'x-together-traceid',
  },
  xai: {
    model: 'grok-4',
    quotas: '[{ metric: requests, limit: 3, per: 1m }]',
    admitted: 3,
    call: (o) => chatCall('xai', o),
    keyHeader: 'authorization',
    modelInPath: false,
    dialect: 'openai',
    // §12.2: a missing or wrong key is a 400 "Client specified an invalid argument".
    missingKey: { status: 400, envelope: XAI },
    wrongKey: { status: 400, envelope: XAI },
    unknownModel: { status: 404, envelope: XAI },
    badJson: { status: 400, envelope: XAI },
    // §12.1: no rate-limit headers and no wait hint found.
    quota: { status: 429, envelope: XAI, hintForm: null, announced: (r) => seconds(r.headers['retry-after']) },
    rateLimitHeaders: [],
    requestIdHeader: 'x-request-id',
  },
};

describe('vendor profile contract', () => {
  it('has one table entry per registered vendor and no other', () => {
    expect(Object.keys(CONTRACTS).sort()).toEqual([...VENDOR_IDS].sort());
  });

  for (const vendor of VENDOR_IDS) {
    describe(vendor, () => {
      runVendorProfileContract({ vendor, contract: CONTRACTS[vendor] });
    });
  }
});
