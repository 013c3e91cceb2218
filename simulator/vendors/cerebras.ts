import type { LimitView } from '../quota/quota-set.js';
import { pickView } from './limit-views.js';
import { encodeOpenAIShapedError, openAICompatibleBase, openAIStyleError } from './openai.js';
import type { EncodeContext, ErrorSpec, HeaderMap, Route, VendorProfile } from './types.js';

// Cerebras errors are flat: the OpenAI error fields at the top level, no `error` wrapper.
function flat(message: string, type: string, param: string | null, code: string | null): string {
  return JSON.stringify({ message, type, param, code });
}

// Float seconds to the millisecond, rounded up so a client never comes back early.
const seconds = (v: LimitView) => v.rawReset ?? String(Math.ceil(Math.max(0, v.resetInMs)) / 1000);

/**
 * `x-ratelimit-{limit,remaining,reset}-requests-day` and `-tokens-minute` on every response,
 * resets as float seconds (`33011.382867097855`); the `-requests-minute` family seen in one
 * fixture only is UNCONFIRMED and sent with `options.requestsMinuteHeaders`.
 * @see https://inference-docs.cerebras.ai/support/rate-limits
 */
function cerebrasRateLimitHeaders(views: LimitView[], headers: HeaderMap, ctx: EncodeContext): HeaderMap {
  const day = pickView(views, 'requests', 'longest');
  const minuteTokens = pickView(views, 'tokens', 'shortest');
  const minuteRequests = pickView(views, 'requests', 'shortest');
  const family = (name: string, v: LimitView) => {
    headers[`x-ratelimit-limit-${name}`] = String(v.limit);
    headers[`x-ratelimit-remaining-${name}`] = String(v.remaining);
    headers[`x-ratelimit-reset-${name}`] = seconds(v);
  };
  if (day) family('requests-day', day);
  if (minuteTokens) family('tokens-minute', minuteTokens);
  if (ctx.options.requestsMinuteHeaders === true && minuteRequests && minuteRequests !== day)
    family('requests-minute', minuteRequests);
  return headers;
}

function cerebrasStyle(e: ErrorSpec, ctx: EncodeContext, waitText: string | undefined) {
  const v = e.violation;
  switch (e.kind) {
    case 'invalid_api_key':
    case 'missing_api_key':
      return {
        status: 401,
        errorType: 'wrong_api_key',
        body: flat('Wrong API Key', 'invalid_request_error', 'api_key', 'wrong_api_key'),
      };
    case 'model_not_found':
      return {
        status: 404,
        errorType: 'model_not_found',
        body: flat(
          `Model ${ctx.model} does not exist or you do not have access to it.`,
          'not_found_error',
          'model',
          'model_not_found',
        ),
      };
    case 'invalid_request':
    case 'bad_json':
      return {
        status: 400,
        errorType: 'invalid_request_error',
        body: flat(e.message ?? 'Invalid request.', 'invalid_request_error', e.param ?? null, 'wrong_api_format'),
      };
    case 'rate_limited':
    case 'request_too_large':
    case 'slow_down': {
      const tokens = v !== undefined && v.metric !== 'requests';
      const per = v && v.rule.windowMs >= 86_400_000 ? 'day' : v && v.rule.windowMs >= 3_600_000 ? 'hour' : 'minute';
      const wait = waitText ? ` Please try again in ${waitText}.` : '';
      return {
        status: 429,
        errorType: tokens ? 'token_quota_exceeded' : 'request_quota_exceeded',
        body: flat(
          e.message ??
            (tokens
              ? `Tokens per ${per} limit exceeded - too many tokens processed.${wait}`
              : `Requests per ${per} limit exceeded - too many requests sent.${wait}`),
          'too_many_requests_error',
          'quota',
          tokens ? 'token_quota_exceeded' : 'request_quota_exceeded',
        ),
      };
    }
    case 'capacity':
      // High traffic is a 429 too, told apart from quota by its code (UNCONFIRMED) and message.
      return {
        status: 429,
        errorType: 'queue_exceeded',
        body: flat(
          e.message ?? "We're experiencing high traffic right now! Please try again soon.",
          'too_many_requests_error',
          'queue',
          'queue_exceeded',
        ),
      };
    case 'quota_exhausted':
      return {
        status: 402,
        errorType: 'payment_required',
        body: flat(e.message ?? 'Payment required.', 'payment_required_error', null, 'payment_required'),
      };
    case 'overloaded':
    case 'unavailable':
      return {
        status: 503,
        errorType: 'service_unavailable',
        body: flat(e.message ?? 'Service unavailable.', 'service_unavailable_error', null, 'service_unavailable'),
      };
    case 'server_error':
      return {
        status: 500,
        errorType: 'internal_server_error',
        body: flat(e.message ?? 'Internal server error.', 'internal_server_error', null, 'internal_server_error'),
      };
    default:
      return openAIStyleError(e, ctx, waitText);
  }
}

/**
 * The SDKs' warm-up on construction (cerebras-cloud-sdk `_client.py`, `warm_tcp_connection=True`):
 * observed answered 200; the body is UNCONFIRMED (the generated resource casts it to `object`).
 */
const TCP_WARMING: Route = { kind: 'warm-up', status: 200, body: '{}' };

// Usage and `time_info` ride on the finish chunk whether or not `stream_options` asks (issue 24's
// recording; docs/vendor-facts.md §20.4).
const base = openAICompatibleBase(
  '/v1',
  { extraFields: cerebrasExtra, usageOnFinish: true, timeInfo: true },
  'Cerebras',
);

/**
 * Cerebras Inference: OpenAI-compatible under `/v1`, Bearer auth, a per-day request and per-minute
 * token header family with float-second resets on every response, flat error bodies, token-bucket
 * quotas charged `input + max_completion_tokens` up front; `retry-after` on 429 is UNCONFIRMED
 * (`options.retryAfterOn429`).
 * @see https://inference-docs.cerebras.ai/support/rate-limits
 * @see https://inference-docs.cerebras.ai/support/error
 */
export const cerebrasProfile: VendorProfile = {
  id: 'cerebras',
  title: 'Cerebras',
  defaults: {
    algorithm: { requests: 'token-bucket', tokens: 'token-bucket' },
    tokenAdmission: 'input+max_tokens',
    chargeOutputToTokens: false,
    countRejected: false,
    tokensPerFrame: 4,
  },
  ...base,
  route: (method, path) => (method === 'GET' && path === '/v1/tcp_warming' ? TCP_WARMING : base.route(method, path)),
  baseUrl: (root) => `${root}/v1`,
  envLines: (baseUrl, key) => [
    ['CEREBRAS_BASE_URL', baseUrl.replace(/\/v1$/, '')],
    ['CEREBRAS_API_KEY', key],
  ],
  error: (e, views, ctx) =>
    encodeOpenAIShapedError(e, views, ctx, {
      rateLimitHeaders: (v, h) => cerebrasRateLimitHeaders(v, h, ctx),
      nativeRetryAfter: ctx.options.retryAfterOn429 === true,
      messageWait: false,
      style: cerebrasStyle,
    }),
  rateLimitHeaders: (views, ctx) => cerebrasRateLimitHeaders(views, {}, ctx),
  commonHeaders: (ctx) => ({
    'cerebras-request-id': ctx.requestId,
    'cerebras-processing-time': String(((ctx.processingMs ?? 0) / 1000).toFixed(3)),
  }),
};

function cerebrasExtra(ctx: EncodeContext): string {
  return `"system_fingerprint":"fp_${ctx.requestId.slice(0, 10)}"`;
}
