import { encodeOpenAIShapedError, openAICompatibleBase } from './openai.js';
import { embeddingsApi } from './openai-embeddings.js';
import { responsesApi } from './openai-responses.js';
import type { ApiSurface, EncodeContext, ErrorSpec, VendorProfile } from './types.js';
import { randomHex, stableUuid, uuidFrom } from './wire-format.js';

// xAI's REST errors are flat: a gRPC status description as `code` and the message as `error`.
function xaiError(code: string, error: string): string {
  return JSON.stringify({ code, error });
}

/**
 * OpenAI's Responses API as xAI serves it: the same bodies and events, but a response id that is a
 * bare UUID (message items `msg_<uuid>`), as in recorded xAI streams.
 * @see https://docs.x.ai/docs/guides/chat
 */
const xaiResponsesApi: ApiSurface = {
  ...responsesApi,
  completionId: (ctx) => uuidFrom(randomHex(ctx.rng, 32)),
};

const EXHAUSTED = 'Some resource has been exhausted';

function xaiStyle(e: ErrorSpec, ctx: EncodeContext, waitText: string | undefined) {
  const team = stableUuid(ctx.org);
  const v = e.violation;
  switch (e.kind) {
    case 'invalid_api_key':
    case 'missing_api_key':
      // A wrong key is a 400, not a 401 (continuedev/continue#10778, i-am-bee/beeai-framework#447).
      return {
        status: 400,
        errorType: 'invalid_argument',
        body: xaiError(
          'Client specified an invalid argument',
          e.kind === 'missing_api_key'
            ? 'No API key provided. You can obtain an API key from https://console.x.ai.'
            : `Incorrect API key provided: ${e.maskedKey ?? '****'}. You can obtain an API key from https://console.x.ai.`,
        ),
      };
    case 'bad_json':
    case 'invalid_request':
    case 'payload_too_large':
      return {
        status: e.kind === 'payload_too_large' ? 413 : 400,
        errorType: 'invalid_argument',
        body: xaiError('Client specified an invalid argument', e.message ?? 'Failed to deserialize the JSON body.'),
      };
    case 'model_not_found':
    case 'wrong_model_kind': // not refused by this vendor's profile (no source); an unknown model's answer
      return {
        status: 404,
        errorType: 'not_found',
        body: xaiError(
          'Some requested entity was not found',
          `The model ${ctx.model} does not exist or your team ${team} does not have access to it. Please ensure you're using the correct API key.`,
        ),
      };
    case 'not_found':
      return {
        status: 404,
        errorType: 'not_found',
        body: xaiError('Some requested entity was not found', 'Not found'),
      };
    case 'quota_exhausted': {
      // The credits wall was a 429 early in 2026 and a 403 `permission-denied` later.
      const as429 = ctx.options.creditsWallStatus === 429;
      return {
        status: as429 ? 429 : 403,
        errorType: 'credits_exhausted',
        body: xaiError(
          as429 ? EXHAUSTED : 'permission-denied',
          e.message ??
            `Your team ${team} has either used all available credits or reached its monthly spending limit. To continue making API requests, please purchase more credits or raise your spending limit.`,
        ),
      };
    }
    case 'rate_limited':
    case 'request_too_large':
    case 'slow_down':
    case 'capacity': {
      const tokens = v !== undefined && v.metric !== 'requests';
      const wait = waitText ? ` Please try again in ${waitText}.` : '';
      return {
        status: 429,
        errorType: 'resource_exhausted',
        body: xaiError(
          EXHAUSTED,
          e.message ??
            `${tokens ? 'Too many tokens' : 'Too many requests'} for team ${team} and model ${ctx.model}${v ? `: limit ${v.limit} per ${v.rule.windowMs >= 60_000 ? 'minute' : 'second'}` : ''}.${wait}`,
        ),
      };
    }
    case 'server_error':
    case 'bad_gateway':
    case 'timeout':
      return {
        status: e.kind === 'server_error' ? 500 : e.kind === 'bad_gateway' ? 502 : 504,
        errorType: 'internal',
        body: xaiError('Internal error', e.message ?? 'Internal server error.'),
      };
    case 'overloaded':
    case 'unavailable':
      return {
        status: 503,
        errorType: 'unavailable',
        body: xaiError('The service is currently unavailable', e.message ?? 'The service is currently unavailable.'),
      };
  }
}

/**
 * xAI (Grok): OpenAI-compatible REST under `/v1` with Bearer auth, no rate-limit headers, flat
 * `{"code","error"}` bodies with gRPC status descriptions, a wrong key answered 400, the credits
 * wall as 403 `permission-denied` (or 429, `options.creditsWallStatus`); per-team, per-model
 * request and token limits counting input and output. Chat Completions and the Responses API.
 * @see https://docs.x.ai/docs/rate-limits
 * @see https://docs.x.ai/docs/guides/chat
 */
export const xaiProfile: VendorProfile = {
  id: 'xai',
  title: 'xAI',
  defaults: {
    algorithm: { requests: 'token-bucket', tokens: 'token-bucket' },
    tokenAdmission: 'input',
    chargeOutputToTokens: true,
    countRejected: false,
    tokensPerFrame: 1,
  },
  resetHeaders: false,
  // The Responses API is xAI's recommended surface (docs/vendor-facts.md §20.6): OpenAI's shapes,
  // answered with xAI's flat errors and headers by this profile's `error` and `commonHeaders`.
  ...openAICompatibleBase('/v1', { extraFields: xaiExtra }, 'xai', {
    responses: xaiResponsesApi,
    embeddings: embeddingsApi,
  }),
  baseUrl: (root) => `${root}/v1`,
  envLines: (baseUrl, key) => [
    ['XAI_BASE_URL', baseUrl],
    ['XAI_API_KEY', key],
  ],
  error: (e, views, ctx) =>
    encodeOpenAIShapedError(e, views, ctx, {
      rateLimitHeaders: (_v, h) => h,
      nativeRetryAfter: false,
      messageWait: false,
      resetMetrics: [],
      style: xaiStyle,
    }),
  rateLimitHeaders: () => ({}),
  commonHeaders: (ctx) => ({ 'x-request-id': uuidFrom(ctx.requestId) }),
};

function xaiExtra(ctx: EncodeContext): string {
  return `"system_fingerprint":"fp_${ctx.requestId.slice(0, 10)}"`;
}
