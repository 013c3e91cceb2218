import type { LimitView } from '../quota/quota-set.js';
import { writeRetryHeaders, type HintSent } from './hint.js';
import { pickView, withResetHint } from './limit-views.js';
import { openAIStreamFrames } from './openai-compatible.js';
import { embeddingsApi } from './openai-embeddings.js';
import { responsesApi } from './openai-responses.js';
import { openAICompatibleBase } from './openai.js';
import type { EncodeContext, EncodedError, ErrorSpec, HeaderMap, StreamFrames, VendorProfile } from './types.js';
import { randomAlnum } from './wire-format.js';

function envelope(code: number, message: string, metadata?: Record<string, unknown>, userId?: string): string {
  return JSON.stringify({
    error: { message, code, ...(metadata ? { metadata } : {}) },
    ...(userId ? { user_id: userId } : {}),
  });
}

/**
 * `X-RateLimit-{Limit,Remaining,Reset}` with the reset as epoch milliseconds: sent on 429s only,
 * and copied into `error.metadata.headers`.
 * @see https://openrouter.ai/docs/api-reference/limits
 */
function limitHeaders(v: LimitView, now: number): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(v.limit),
    'X-RateLimit-Remaining': String(v.remaining),
    'X-RateLimit-Reset': v.rawReset ?? String(Math.ceil(now + Math.max(0, v.resetInMs))),
  };
}

const THROTTLED = new Set(['rate_limited', 'request_too_large', 'slow_down']);

function encodeOpenRouterError(e: ErrorSpec, views: LimitView[], ctx: EncodeContext): EncodedError {
  const headers: HeaderMap = { 'content-type': 'application/json' };
  const userId = `user_${ctx.org}`;
  const hint = e.hint;
  let sent: HintSent | undefined;
  const finish = (status: number, body: string, errorType: string): EncodedError => {
    if (e.shouldRetry !== undefined) headers['x-should-retry'] = String(e.shouldRetry);
    return { status: e.status ?? status, headers, body, hintSent: sent, errorType };
  };
  if (THROTTLED.has(e.kind)) {
    const metric = e.violation?.metric === 'requests' || !e.violation ? 'requests' : 'tokens';
    let shown = views;
    if (
      hint &&
      (hint.form === 'vendor' || hint.form === 'reset-header') &&
      views.some((v) => v.rule.metric === metric)
    ) {
      shown = withResetHint(views, metric, hint);
      sent = {
        ms: hint.raw !== undefined ? Number.NaN : Math.ceil(ctx.now + Math.max(0, hint.ms)) - ctx.now,
        form: 'reset-header',
      };
    }
    // Retry-After "may" be sent on 429 and 503 (documented); `options.retryAfter: false` drops it.
    if (hint?.form === 'vendor' && ctx.options.retryAfter !== false)
      sent = writeRetryHeaders({ ...hint, form: 'seconds' }, ctx, headers);
    else if (hint && (hint.form === 'seconds' || hint.form === 'ms' || hint.form === 'http-date'))
      sent = writeRetryHeaders(hint, ctx, headers);
    const v = pickView(shown, metric) ?? pickView(shown, 'requests');
    const limits = v && hint?.form !== 'none' ? limitHeaders(v, ctx.now) : undefined;
    if (limits) for (const [name, value] of Object.entries(limits)) headers[name.toLowerCase()] = value;
    const window = v && v.rule.windowMs >= 86_400_000 ? 'day' : 'min';
    return finish(
      429,
      envelope(
        429,
        e.message ?? `Rate limit exceeded: ${ctx.model.endsWith(':free') ? 'free-models' : 'requests'}-per-${window}. `,
        limits ? { headers: limits } : undefined,
        userId,
      ),
      'rate_limited',
    );
  }
  if (hint && (hint.form === 'seconds' || hint.form === 'ms' || hint.form === 'http-date'))
    sent = writeRetryHeaders(hint, ctx, headers);
  else if (
    hint?.form === 'vendor' &&
    ctx.options.retryAfter !== false &&
    (e.kind === 'unavailable' || e.kind === 'overloaded' || e.kind === 'capacity')
  )
    sent = writeRetryHeaders({ ...hint, form: 'seconds' }, ctx, headers);
  switch (e.kind) {
    case 'invalid_api_key':
      return finish(401, envelope(401, 'User not found.'), 'unauthorized');
    case 'missing_api_key':
      return finish(401, envelope(401, 'No auth credentials found'), 'unauthorized');
    case 'bad_json':
    case 'invalid_request':
    case 'payload_too_large':
      return finish(
        e.kind === 'payload_too_large' ? 413 : 400,
        envelope(400, e.message ?? 'Invalid JSON payload', undefined, userId),
        'bad_request',
      );
    case 'model_not_found':
      return finish(400, envelope(400, `${ctx.model} is not a valid model ID`, undefined, userId), 'invalid_model');
    case 'not_found':
      return finish(404, envelope(404, 'Not Found'), 'not_found');
    case 'quota_exhausted':
      return finish(
        402,
        envelope(
          402,
          e.message ?? 'Insufficient credits. Add more using https://openrouter.ai/settings/credits',
          undefined,
          userId,
        ),
        'insufficient_credits',
      );
    case 'server_error':
    case 'bad_gateway':
      return finish(
        502,
        envelope(
          502,
          e.message ?? 'Provider returned error',
          { raw: 'upstream error', provider_name: 'Simulated' },
          userId,
        ),
        'provider_error',
      );
    case 'timeout':
      return finish(408, envelope(408, e.message ?? 'Request timed out', undefined, userId), 'timeout');
    case 'capacity':
    case 'overloaded':
    case 'unavailable':
      return finish(
        503,
        envelope(503, e.message ?? 'No allowed providers are available for the selected model.', undefined, userId),
        'no_provider',
      );
    default:
      return finish(429, envelope(429, 'Rate limit exceeded'), 'rate_limited');
  }
}

/**
 * OpenRouter: OpenAI-compatible under `/api/v1` with Bearer auth; rate-limit headers only on
 * 429s (`X-RateLimit-Reset` in epoch ms, copied into `error.metadata.headers`), `Retry-After` on
 * 429 and 503, `{"error":{"code":<int>,"message"}}` bodies, 402 for credits, 502 when the model's
 * provider fails, 503 when none is available; streams open with `: OPENROUTER PROCESSING`
 * comments, always end with usage, and report mid-stream errors as a chunk with an `error` field
 * and `finish_reason: "error"`.
 * @see https://openrouter.ai/docs/api-reference/errors
 * @see https://openrouter.ai/docs/api-reference/streaming
 */
export const openrouterProfile: VendorProfile = {
  id: 'openrouter',
  title: 'OpenRouter',
  bodyHints: false,
  defaults: {
    algorithm: { requests: 'fixed-window', tokens: 'fixed-window' },
    dayWindowTimeZone: 'UTC',
    tokenAdmission: 'input',
    chargeOutputToTokens: true,
    countRejected: false,
    tokensPerFrame: 1,
  },
  ...openAICompatibleBase('/api/v1', { extraFields: openrouterExtra }, 'openrouter', {
    responses: responsesApi,
    embeddings: embeddingsApi,
  }),
  completionId: (ctx) => `gen-${Math.floor(ctx.now / 1000)}-${randomAlnum(ctx.rng, 20)}`,
  stream(c, ctx): StreamFrames {
    const frames = openAIStreamFrames(c, ctx, true, { extraFields: openrouterExtra });
    return {
      ...frames,
      opening: ': OPENROUTER PROCESSING\n\n',
      error(e) {
        const message = e.kind === 'rate_limited' ? 'Rate limit exceeded' : 'Provider disconnected unexpectedly';
        return `data: ${JSON.stringify({
          id: c.id,
          object: 'chat.completion.chunk',
          created: Math.floor(c.createdAt / 1000),
          model: c.model,
          provider: 'Simulated',
          error: { code: 'server_error', message },
          choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
        })}\n\n`;
      },
    };
  },
  baseUrl: (root) => `${root}/api/v1`,
  envLines: (baseUrl, key) => [
    ['OPENROUTER_BASE_URL', baseUrl],
    ['OPENROUTER_API_KEY', key],
  ],
  error: encodeOpenRouterError,
  rateLimitHeaders: () => ({}),
  commonHeaders: (ctx) => ({ 'x-generation-id': `gen-${Math.floor(ctx.now / 1000)}-${ctx.requestId.slice(0, 20)}` }),
};

function openrouterExtra(): string {
  return '"provider":"Simulated","system_fingerprint":null';
}
