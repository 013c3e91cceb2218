import type { LimitView } from '../quota/quota-set.js';
import { pickView } from './limit-views.js';
import { openAIStreamFrames } from './openai-compatible.js';
import { encodeOpenAIShapedError, openAICompatibleBase, openAIStyleError } from './openai.js';
import type { EncodeContext, ErrorSpec, HeaderMap, VendorProfile } from './types.js';
import { ceilSeconds, randomHex } from './wire-format.js';

function mistralError(message: string, type: string, code: string | null): string {
  return JSON.stringify({ object: 'error', message, type, param: null, code });
}

/**
 * Mistral's `ratelimitbysize-*` token headers (per-minute, seconds-to-reset) and the monthly
 * `x-ratelimitbysize-*-month` pair. Names come from client parsers and captures, not from an
 * official table (UNCONFIRMED), so `options.headers: none` turns them off.
 */
function mistralRateLimitHeaders(views: LimitView[], headers: HeaderMap, ctx: EncodeContext): HeaderMap {
  if (ctx.options.headers === 'none') return headers;
  const minute = pickView(views, 'tokens', 'shortest');
  const month = pickView(views, 'tokens', 'longest');
  if (minute) {
    headers['ratelimitbysize-limit'] = String(minute.limit);
    headers['ratelimitbysize-remaining'] = String(minute.remaining);
    headers['ratelimitbysize-reset'] = minute.rawReset ?? String(ceilSeconds(minute.resetInMs));
    if (ctx.meta?.cost) headers['ratelimitbysize-query-cost'] = ctx.meta.cost;
    headers['x-ratelimitbysize-limit-minute'] = String(minute.limit);
    headers['x-ratelimitbysize-remaining-minute'] = String(minute.remaining);
  }
  if (month && month !== minute) {
    headers['x-ratelimitbysize-limit-month'] = String(month.limit);
    headers['x-ratelimitbysize-remaining-month'] = String(month.remaining);
  }
  return headers;
}

function mistralStyle(e: ErrorSpec, ctx: EncodeContext, waitText: string | undefined) {
  switch (e.kind) {
    case 'invalid_api_key':
    case 'missing_api_key':
      return {
        status: 401,
        errorType: 'unauthorized',
        body: JSON.stringify({ message: 'Unauthorized', request_id: ctx.requestId }),
      };
    case 'bad_json':
      // Mistral's validation 422 wraps the FastAPI detail list in its envelope (captured for
      // extra_forbidden, §6.2); the json_invalid detail for an unparseable body is UNCONFIRMED.
      return {
        status: 422,
        errorType: 'invalid_request_error',
        body: JSON.stringify({
          object: 'error',
          message: { detail: [{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error', input: {} }] },
          type: 'invalid_request_error',
          param: null,
          code: null,
        }),
      };
    case 'invalid_request':
      return {
        status: 422,
        errorType: 'invalid_request_error',
        body: mistralError(e.message ?? 'Invalid request', 'invalid_request_error', null),
      };
    case 'model_not_found':
      return {
        status: 400,
        errorType: 'invalid_model',
        body: mistralError(`Invalid model: ${ctx.model}`, 'invalid_model', '1500'),
      };
    case 'rate_limited':
    case 'request_too_large':
    case 'quota_exhausted':
    case 'slow_down': {
      // Kong's gateway answered per-second request limits with a bare message (2025 captures).
      if (ctx.options.rateLimitBody === 'kong')
        return {
          status: 429,
          errorType: 'rate_limited',
          body: JSON.stringify({ message: 'Requests rate limit exceeded' }),
        };
      const msg = waitText ? `Rate limit exceeded. Please try again in ${waitText}.` : 'Rate limit exceeded';
      return { status: 429, errorType: 'rate_limited', body: mistralError(e.message ?? msg, 'rate_limited', '1300') };
    }
    case 'capacity':
      return {
        status: 429,
        errorType: 'service_tier_capacity_exceeded',
        body: mistralError(
          e.message ?? 'Service tier capacity exceeded for this model.',
          'service_tier_capacity_exceeded',
          '3505',
        ),
      };
    case 'server_error':
      return {
        status: 500,
        errorType: 'internal_server_error',
        body: mistralError(e.message ?? 'Internal server error', 'internal_server_error', null),
      };
    case 'overloaded':
    case 'unavailable':
      return {
        status: 503,
        errorType: 'service_unavailable',
        body: mistralError(e.message ?? 'Service unavailable', 'service_unavailable', null),
      };
    default:
      return openAIStyleError(e, ctx, waitText);
  }
}

/**
 * Mistral La Plateforme: OpenAI-like `/v1/chat/completions`, `{"object":"error",…,"code":"1300"}`
 * 429 bodies, `service_tier_capacity_exceeded` (3505) for capacity, no `Retry-After`,
 * organisation-level RPS and token windows.
 * @see https://docs.mistral.ai/deployment/ai-studio/tier
 */
export const mistralProfile: VendorProfile = {
  id: 'mistral',
  title: 'Mistral',
  defaults: {
    algorithm: { requests: 'fixed-window', tokens: 'fixed-window' },
    tokenAdmission: 'input',
    chargeOutputToTokens: true,
    countRejected: false,
    tokensPerFrame: 1,
  },
  ...openAICompatibleBase('/v1', {}, 'mistralai'),
  // Mistral puts usage on the finish chunk of every stream; there is no `stream_options`, and the
  // Mistral SDK and @ai-sdk/mistral read usage from that chunk.
  stream: (c, ctx) => openAIStreamFrames(c, ctx, false, { usageOnFinish: true }),
  completionId: (ctx) => randomHex(ctx.rng, 32),
  baseUrl: (root) => `${root}/v1`,
  envLines: (baseUrl, key) => [
    ['MISTRAL_BASE_URL', baseUrl.replace(/\/v1$/, '')],
    ['MISTRAL_API_KEY', key],
  ],
  error: (e, views, ctx) =>
    encodeOpenAIShapedError(e, views, ctx, {
      rateLimitHeaders: (v, h) => mistralRateLimitHeaders(v, h, ctx),
      nativeRetryAfter: false,
      messageWait: false,
      resetMetrics: ctx.options.headers === 'none' ? [] : ['tokens'],
      style: mistralStyle,
    }),
  rateLimitHeaders: (views, ctx) => mistralRateLimitHeaders(views, {}, ctx),
  commonHeaders: (ctx) => ({
    'x-kong-request-id': ctx.requestId,
    'x-kong-upstream-latency': String(Math.round(ctx.processingMs ?? 0)),
    'x-kong-proxy-latency': '1',
  }),
};
