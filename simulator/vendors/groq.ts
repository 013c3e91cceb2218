import { dimensionText } from './limit-views.js';
import { openAIStreamFrames } from './openai-compatible.js';
import { encodeOpenAIShapedError, openAICompatibleBase, openAIStyleError, xRateLimitHeaders } from './openai.js';
import type { EncodeContext, ErrorSpec, VendorProfile } from './types.js';

const THROTTLED = new Set(['rate_limited', 'quota_exhausted', 'request_too_large', 'slow_down']);

// Groq's errors are OpenAI-like but carry no `param` key.
function groqError(message: string, type: string, code?: string): string {
  return JSON.stringify({ error: code ? { message, type, code } : { message, type } });
}

function groqStyle(e: ErrorSpec, ctx: EncodeContext, waitText: string | undefined) {
  const v = e.violation;
  switch (e.kind) {
    case 'invalid_api_key':
    case 'missing_api_key':
      return {
        status: 401,
        errorType: 'invalid_api_key',
        body: groqError('Invalid API Key', 'invalid_request_error', 'invalid_api_key'),
      };
    case 'model_not_found':
      return {
        status: 404,
        errorType: 'model_not_found',
        body: groqError(
          `The model \`${ctx.model}\` does not exist or you do not have access to it.`,
          'invalid_request_error',
          'model_not_found',
        ),
      };
    case 'rate_limited':
    case 'quota_exhausted': {
      const dim = v
        ? dimensionText(v.metric, v.rule.windowMs, true)
        : e.kind === 'quota_exhausted'
          ? 'tokens per day (TPD)'
          : 'requests per minute (RPM)';
      const nums = v ? `: Limit ${v.limit}, Used ${v.used}, Requested ${v.requested}` : '';
      const wait = waitText ? ` Please try again in ${waitText}.` : '';
      const type = !v || v.metric === 'requests' ? 'requests' : 'tokens';
      const tail =
        e.kind === 'quota_exhausted'
          ? ' Need more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing'
          : ' Visit https://console.groq.com/docs/rate-limits for more information.';
      return {
        status: 429,
        errorType: 'rate_limit_exceeded',
        body: groqError(
          e.message ??
            `Rate limit reached for model \`${ctx.model}\` in organization \`org_${ctx.org}\` service tier \`on_demand\` on ${dim}${nums}.${wait}${tail}`,
          e.kind === 'quota_exhausted' ? 'tokens' : type,
          'rate_limit_exceeded',
        ),
      };
    }
    case 'server_error':
      return {
        status: 500,
        errorType: 'internal_server_error',
        body: groqError(e.message ?? 'Internal Server Error', 'internal_server_error'),
      };
    case 'overloaded':
    case 'unavailable':
    case 'capacity':
      return {
        status: 503,
        errorType: 'service_unavailable',
        body: groqError(e.message ?? 'Service Unavailable', 'internal_server_error', 'service_unavailable'),
      };
    default:
      return openAIStyleError(e, ctx, waitText, {
        name: 'Groq',
        rateLimitUrl: 'https://console.groq.com/docs/rate-limits',
      });
  }
}

/**
 * Groq: OpenAI-compatible under `/openai/v1`, `retry-after` only on 429, the wait also in the
 * message ("Please try again in 5.289s"), stream usage in `x_groq.usage` (configurable).
 * @see https://console.groq.com/docs/errors
 */
export const groqProfile: VendorProfile = {
  id: 'groq',
  title: 'Groq',
  defaults: {
    algorithm: { requests: 'token-bucket', tokens: 'token-bucket' },
    tokenAdmission: 'input',
    chargeOutputToTokens: true,
    countRejected: false,
    tokensPerFrame: 1,
  },
  ...openAICompatibleBase('/openai/v1', { extraFields: groqExtra }, 'Groq'),
  baseUrl: (root) => `${root}/openai/v1`,
  envLines: (baseUrl, key) => [
    ['GROQ_BASE_URL', baseUrl.replace(/\/openai\/v1$/, '')],
    ['GROQ_API_KEY', key],
  ],
  stream: (c, ctx, includeUsage) => {
    const mode = ctx.options.streamUsage ?? 'both';
    return openAIStreamFrames(c, ctx, includeUsage, {
      extraFields: groqExtra,
      xGroqUsage: mode !== 'usage',
      usageChunk: mode !== 'x_groq',
    });
  },
  error: (e, views, ctx) =>
    encodeOpenAIShapedError(e, views, ctx, {
      // A captured RPM 429 carried `retry-after` and no x-ratelimit-* headers; the reset-header
      // hint form and `headersOn429: all` put them back.
      rateLimitHeaders: (v, h) =>
        THROTTLED.has(e.kind) && e.hint?.form !== 'reset-header' && ctx.options.headersOn429 !== 'all'
          ? h
          : xRateLimitHeaders(v, h, 'longest'),
      nativeRetryAfter: true,
      messageWait: true,
      vendorResetHint: false,
      style: groqStyle,
    }),
  rateLimitHeaders: (views) => xRateLimitHeaders(views, {}, 'longest'),
  commonHeaders: (ctx) => ({
    'x-request-id': `req_01${ctx.requestId.slice(0, 24)}`,
    'x-groq-region': String(ctx.options.region ?? 'us-east-1'),
  }),
};

function groqExtra(ctx: EncodeContext): string {
  return `"system_fingerprint":"fp_${ctx.requestId.slice(0, 10)}"`;
}
