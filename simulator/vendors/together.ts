import type { LimitView } from '../quota/quota-set.js';
import { pickView } from './limit-views.js';
import { openAIErrorBody, openAIStreamFrames } from './openai-compatible.js';
import { encodeOpenAIShapedError, openAICompatibleBase, openAIStyleError } from './openai.js';
import type { EncodeContext, ErrorSpec, HeaderMap, VendorProfile } from './types.js';
import { ceilSeconds } from './wire-format.js';

/**
 * `x-ratelimit-{limit,remaining,reset}` for requests (reset in seconds) and
 * `x-tokenlimit-{limit,remaining}` for tokens, on every serverless response. Together measures
 * limits per second; the names come from third-party probes (partially confirmed).
 * @see https://docs.together.ai/docs/serverless/rate-limits
 */
function togetherRateLimitHeaders(views: LimitView[], headers: HeaderMap): HeaderMap {
  const req = pickView(views, 'requests');
  const tok = pickView(views, 'tokens');
  if (req) {
    headers['x-ratelimit-limit'] = String(req.limit);
    headers['x-ratelimit-remaining'] = String(req.remaining);
    headers['x-ratelimit-reset'] = req.rawReset ?? String(ceilSeconds(req.resetInMs));
  }
  if (tok) {
    headers['x-tokenlimit-limit'] = String(tok.limit);
    headers['x-tokenlimit-remaining'] = String(tok.remaining);
  }
  return headers;
}

function togetherStyle(e: ErrorSpec, ctx: EncodeContext, waitText: string | undefined) {
  const v = e.violation;
  switch (e.kind) {
    case 'invalid_api_key':
    case 'missing_api_key':
      return {
        status: 401,
        errorType: 'invalid_api_key',
        body: openAIErrorBody(
          `Invalid API key provided. You can find your API key at https://api.together.xyz/settings/api-keys.`,
          'invalid_request_error',
          null,
          'invalid_api_key',
        ),
      };
    case 'model_not_found':
      return {
        status: 404,
        errorType: 'model_not_available',
        body: openAIErrorBody(
          `Unable to access model ${ctx.model}. Please visit https://api.together.ai/models to view the list of supported models.`,
          'invalid_request_error',
          null,
          'model_not_available',
        ),
      };
    case 'rate_limited':
    case 'request_too_large':
    case 'slow_down': {
      const perSecond = v ? (v.limit * 1000) / v.rule.windowMs : undefined;
      const wait = waitText ? ` Please try again in ${waitText}.` : '';
      return {
        status: 429,
        errorType: 'rate_limit',
        body: openAIErrorBody(
          e.message ??
            `You have reached the rate limit specific to this model ${ctx.model}.${perSecond !== undefined ? ` The maximum rate limit for this model is ${+perSecond.toFixed(2)} ${v!.metric === 'requests' ? 'queries' : 'tokens'} per second.` : ''}${wait}`,
          'model_rate_limit',
          null,
          'rate_limit',
        ),
      };
    }
    case 'capacity':
    case 'overloaded':
    case 'unavailable':
      // A burst at or below your dynamic rate that the model cannot take is a 503, not a 429.
      return {
        status: 503,
        errorType: 'service_unavailable',
        body: openAIErrorBody(
          e.message ?? 'The server is overloaded or not ready yet.',
          'service_unavailable',
          null,
          'service_unavailable',
        ),
      };
    case 'quota_exhausted':
      return {
        status: 402,
        errorType: 'credit_limit',
        body: openAIErrorBody(
          e.message ?? 'Credit limit exceeded. Please add credits to your account.',
          'credit_limit',
          null,
          'credit_limit',
        ),
      };
    default:
      return openAIStyleError(e, ctx, waitText, {
        name: 'Together',
        rateLimitUrl: 'https://docs.together.ai/docs/rate-limits',
      });
  }
}

/**
 * Together AI: OpenAI-compatible under `/v1` with Bearer auth, per-second request and token
 * limits in `x-ratelimit-*` / `x-tokenlimit-*` headers, dynamic rate limits that answer 429 above
 * your rate and 503 at or below it; `retry-after` on 429 is UNCONFIRMED (`options.retryAfterOn429`).
 * @see https://docs.together.ai/docs/serverless/rate-limits
 */
export const togetherProfile: VendorProfile = {
  id: 'together',
  title: 'Together AI',
  defaults: {
    algorithm: { requests: 'token-bucket', tokens: 'token-bucket' },
    tokenAdmission: 'input',
    chargeOutputToTokens: true,
    countRejected: false,
    tokensPerFrame: 1,
  },
  ...openAICompatibleBase('/v1', {}, 'together'),
  // Usage on the finish chunk unasked: UNCONFIRMED, behind `options.usageOnFinish` (default off).
  stream: (c, ctx, includeUsage) =>
    openAIStreamFrames(c, ctx, includeUsage, { usageOnFinish: ctx.options.usageOnFinish === true }),
  baseUrl: (root) => `${root}/v1`,
  envLines: (baseUrl, key) => [
    ['TOGETHER_BASE_URL', baseUrl],
    ['TOGETHER_API_KEY', key],
  ],
  error: (e, views, ctx) =>
    encodeOpenAIShapedError(e, views, ctx, {
      rateLimitHeaders: (v, h) => togetherRateLimitHeaders(v, h),
      nativeRetryAfter: ctx.options.retryAfterOn429 === true,
      messageWait: false,
      resetMetrics: ['requests'],
      style: togetherStyle,
    }),
  rateLimitHeaders: (views) => togetherRateLimitHeaders(views, {}),
  commonHeaders: (ctx) => ({
    'x-together-traceid': ctx.requestId,
    'x-inference-version': 'v2',
  }),
};
