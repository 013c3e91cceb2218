import { encodeOpenAICompletion, openAIErrorBody } from './openai-compatible.js';
import { encodeOpenAIShapedError, openAICompatibleBase, openAIStyleError } from './openai.js';
import type { EncodeContext, ErrorSpec, Route, VendorProfile } from './types.js';
import { randomHex, uuidFrom } from './wire-format.js';

/**
 * DeepSeek's documented statuses (400, 401, 402, 422, 429, 500, 503) in the OpenAI envelope.
 * The exact JSON of each is UNCONFIRMED; messages follow the error-code page.
 * @see https://api-docs.deepseek.com/quick_start/error_codes
 */
function deepseekStyle(e: ErrorSpec, ctx: EncodeContext, waitText: string | undefined) {
  switch (e.kind) {
    case 'invalid_api_key':
    case 'missing_api_key':
      return {
        status: 401,
        errorType: 'authentication_error',
        body: openAIErrorBody(
          `Authentication Fails, Your api key: ${e.maskedKey ?? '****'} is invalid`,
          'authentication_error',
          null,
          'invalid_request_error',
        ),
      };
    case 'bad_json':
      return {
        status: 400,
        errorType: 'invalid_request_error',
        body: openAIErrorBody(
          'Failed to deserialize the JSON body into the target type',
          'invalid_request_error',
          null,
          'invalid_request_error',
        ),
      };
    case 'invalid_request':
      return {
        status: 422,
        errorType: 'invalid_request_error',
        body: openAIErrorBody(
          e.message ?? 'Invalid Parameters',
          'invalid_request_error',
          null,
          'invalid_request_error',
        ),
      };
    case 'model_not_found':
      return {
        status: 400,
        errorType: 'invalid_request_error',
        body: openAIErrorBody('Model Not Exist', 'invalid_request_error', null, 'invalid_request_error'),
      };
    case 'quota_exhausted':
      return {
        status: 402,
        errorType: 'insufficient_balance',
        body: openAIErrorBody(e.message ?? 'Insufficient Balance', 'unknown_error', null, 'invalid_request_error'),
      };
    case 'rate_limited':
    case 'request_too_large':
    case 'slow_down':
    case 'capacity':
      return {
        status: 429,
        errorType: 'rate_limit_reached',
        body: openAIErrorBody(
          e.message ?? (waitText ? `Rate Limit Reached. Please try again in ${waitText}.` : 'Rate Limit Reached'),
          'rate_limit_reached_error',
          null,
          'rate_limit_reached',
        ),
      };
    case 'server_error':
      return {
        status: 500,
        errorType: 'server_error',
        body: openAIErrorBody(e.message ?? 'Server Error', 'server_error', null, 'server_error'),
      };
    case 'overloaded':
    case 'unavailable':
      return {
        status: 503,
        errorType: 'server_overloaded',
        body: openAIErrorBody(e.message ?? 'Server Overloaded', 'server_error', null, 'server_overloaded'),
      };
    default:
      return openAIStyleError(e, ctx, waitText);
  }
}

/**
 * DeepSeek: OpenAI-compatible at `/chat/completions` (and `/v1/…`), no rate-limit headers, a
 * per-account concurrency cap answered with 429, and under load the request held open with blank
 * lines (or `: keep-alive` comments when streaming) before inference starts.
 * @see https://api-docs.deepseek.com/quick_start/rate_limit
 */
export const deepseekProfile: VendorProfile = {
  id: 'deepseek',
  title: 'DeepSeek',
  resetHeaders: false,
  defaults: {
    algorithm: {},
    tokenAdmission: 'input',
    chargeOutputToTokens: true,
    countRejected: false,
    tokensPerFrame: 1,
  },
  ...openAICompatibleBase('/v1', { extraFields: deepseekExtra }, 'deepseek'),
  completionId: (ctx) => uuidFrom(randomHex(ctx.rng, 32)),
  baseUrl: (root) => root,
  envLines: (baseUrl, key) => [
    ['DEEPSEEK_BASE_URL', baseUrl],
    ['DEEPSEEK_API_KEY', key],
  ],
  route(method, path): Route {
    if (path === '/chat/completions' || path === '/v1/chat/completions')
      return method === 'POST' ? { kind: 'chat' } : { kind: 'not-found', method, path };
    if ((path === '/models' || path === '/v1/models') && method === 'GET') return { kind: 'models' };
    return { kind: 'not-found', method, path };
  },
  completion: (c, ctx) =>
    encodeOpenAICompletion(c, ctx, {
      extraFields: deepseekExtra,
      usageDetails:
        ',"prompt_tokens_details":{"cached_tokens":0},"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":' +
        c.inputTokens,
    }),
  error: (e, views, ctx) =>
    encodeOpenAIShapedError(e, views, ctx, {
      rateLimitHeaders: (_v, h) => h,
      nativeRetryAfter: false,
      messageWait: false,
      resetMetrics: [],
      style: deepseekStyle,
    }),
  rateLimitHeaders: () => ({}),
  commonHeaders: (ctx) => ({ 'x-ds-trace-id': ctx.requestId }),
};

function deepseekExtra(): string {
  return '"system_fingerprint":"fp_sim_deepseek"';
}
