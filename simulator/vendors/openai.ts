// Over 300 lines on purpose: a vendor profile keeps every shape of one vendor (routes, auth,
// bodies, streams, headers, errors) in one file, the only place that vendor's wire format lives.
import type { LimitView } from '../quota/quota-set.js';
import { bodyHintMs, writeRetryHeaders, type HintSent } from './hint.js';
import { dimensionText, pickView, withResetHint } from './limit-views.js';
import {
  bearerToken,
  encodeOpenAICompletion,
  encodeOpenAIModels,
  openAIErrorBody,
  openAIStreamError,
  openAIStreamFrames,
  parseOpenAIChat,
  type OpenAIFlavor,
} from './openai-compatible.js';
import { embeddingsApi } from './openai-embeddings.js';
import { responsesApi } from './openai-responses.js';
import type {
  ApiKind,
  ApiSurface,
  Completion,
  EncodeContext,
  EncodedError,
  ErrorSpec,
  HeaderMap,
  Route,
  SimRequest,
  VendorProfile,
} from './types.js';
import { formatGoDuration, randomAlnum, stableHex } from './wire-format.js';

/** Cloudflare's HTML page, which is what OpenAI's edge returns on 502/504. */
export function cloudflarePage(status: number, title: string): string {
  return `<html>\r\n<head><title>${status} ${title}</title></head>\r\n<body>\r\n<center><h1>${status} ${title}</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n`;
}

const CHAT: Route = { kind: 'chat' };
const MODELS: Route = { kind: 'models' };
// Bedrock's InvokeModel is no OpenAI path.
type OpenAIApi = Exclude<ApiKind, 'invoke'>;
const API_ROUTES: Record<OpenAIApi, Route> = {
  responses: { kind: 'chat', api: 'responses' },
  embeddings: { kind: 'chat', api: 'embeddings' },
};

/**
 * Routes the OpenAI REST paths under `prefix`: `/chat/completions`, `/models`, and the other APIs
 * the vendor serves (`/responses`, `/embeddings`).
 */
export function routeOpenAIPaths(method: string, path: string, prefix: string, apis: readonly OpenAIApi[] = []): Route {
  if (path.startsWith(prefix)) {
    const rest = path.slice(prefix.length);
    if (rest === '/chat/completions') return method === 'POST' ? CHAT : { kind: 'not-found', method, path };
    if (rest === '/models' && method === 'GET') return MODELS;
    for (const api of apis)
      if (rest === `/${api}`) return method === 'POST' ? API_ROUTES[api] : { kind: 'not-found', method, path };
  }
  return { kind: 'not-found', method, path };
}

const OPENAI_MESSAGES = {
  serverError: 'The server had an error while processing your request. Sorry about that!',
  overloaded: 'The server is overloaded or not ready yet.',
  insufficientQuota: 'You exceeded your current quota, please check your plan and billing details.',
  slowDown: "Your account's usage is ramping up too quickly. Please slow down your request rate and try again.",
  badJson:
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)",
  // Observed for chat on non-chat models (issue 24; docs/vendor-facts.md §20).
  notChat:
    'This is not a chat model and thus not supported in the v1/chat/completions endpoint. Did you mean to use v1/completions?',
  notEmbedding: 'You are not allowed to generate embeddings from this model',
  missingKey:
    "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username. You can obtain an API key from https://platform.openai.com/account/api-keys.",
};

/**
 * The `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` family with Go-duration resets,
 * shared by OpenAI (requests: the shortest window, RPM) and Groq (requests: the longest, RPD).
 * @see https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers
 * @see https://console.groq.com/docs/rate-limits
 */
export function xRateLimitHeaders(
  views: LimitView[],
  headers: HeaderMap,
  requestsWindow: 'shortest' | 'longest',
  usageBased = false,
): HeaderMap {
  const req = pickView(views, 'requests', requestsWindow);
  const tok = pickView(views, 'tokens', 'shortest');
  if (req) {
    headers['x-ratelimit-limit-requests'] = String(req.limit);
    headers['x-ratelimit-remaining-requests'] = String(req.remaining);
    headers['x-ratelimit-reset-requests'] = req.rawReset ?? formatGoDuration(req.resetInMs);
  }
  if (tok) {
    headers['x-ratelimit-limit-tokens'] = String(tok.limit);
    headers['x-ratelimit-remaining-tokens'] = String(tok.remaining);
    headers['x-ratelimit-reset-tokens'] = tok.rawReset ?? formatGoDuration(tok.resetInMs);
    if (usageBased) {
      headers['x-ratelimit-limit-tokens_usage_based'] = String(tok.limit);
      headers['x-ratelimit-remaining-tokens_usage_based'] = String(tok.remaining);
      headers['x-ratelimit-reset-tokens_usage_based'] = tok.rawReset ?? formatGoDuration(tok.resetInMs);
    }
  }
  return headers;
}

interface OpenAIStyleError {
  status: number;
  body: string;
  errorType: string;
  contentType?: string;
}

/** Phrases every error kind in OpenAI's envelope; shared by OpenAI-compatible vendors. */
export function openAIStyleError(
  e: ErrorSpec,
  ctx: EncodeContext,
  waitText: string | undefined,
  brand = { name: 'OpenAI', rateLimitUrl: 'https://platform.openai.com/account/rate-limits' },
): OpenAIStyleError {
  const v = e.violation;
  switch (e.kind) {
    case 'invalid_api_key':
      return {
        status: 401,
        errorType: 'invalid_api_key',
        body: openAIErrorBody(
          e.message ??
            `Incorrect API key provided: ${e.maskedKey ?? '****'}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          'invalid_request_error',
          null,
          'invalid_api_key',
        ),
      };
    case 'missing_api_key':
      return {
        status: 401,
        errorType: 'missing_api_key',
        body: openAIErrorBody(OPENAI_MESSAGES.missingKey, 'invalid_request_error', null, null),
      };
    case 'bad_json':
      return {
        status: 400,
        errorType: 'invalid_request_error',
        body: openAIErrorBody(OPENAI_MESSAGES.badJson, 'invalid_request_error', null, null),
      };
    case 'invalid_request':
      return {
        status: 400,
        errorType: 'invalid_request_error',
        body: openAIErrorBody(
          e.message ?? 'Invalid request.',
          'invalid_request_error',
          e.param ?? null,
          e.param ? 'invalid_value' : null,
        ),
      };
    case 'model_not_found':
      return {
        status: 404,
        errorType: 'model_not_found',
        body: openAIErrorBody(
          `The model \`${ctx.model}\` does not exist or you do not have access to it.`,
          'invalid_request_error',
          null,
          'model_not_found',
        ),
      };
    case 'wrong_model_kind':
      // Observed: chat on a non-chat model 404s (param `model`), embeddings on a chat model 403s.
      return e.operation === 'embeddings'
        ? {
            status: 403,
            errorType: 'invalid_request_error',
            body: openAIErrorBody(OPENAI_MESSAGES.notEmbedding, 'invalid_request_error', null, null),
          }
        : {
            status: 404,
            errorType: 'invalid_request_error',
            body: openAIErrorBody(OPENAI_MESSAGES.notChat, 'invalid_request_error', 'model', null),
          };
    case 'not_found':
      return {
        status: 404,
        errorType: 'invalid_request_error',
        body: openAIErrorBody(e.message ?? 'Invalid URL', 'invalid_request_error', null, null),
      };
    case 'payload_too_large':
      return {
        status: 413,
        errorType: 'request_too_large',
        body: openAIErrorBody('Request body too large.', 'invalid_request_error', null, 'request_too_large'),
      };
    case 'rate_limited': {
      // The organisation is named whatever the limit's scope: every real text does (§1.2, §20.8).
      const dim = v ? dimensionText(v.metric, v.rule.windowMs) : 'requests per min (RPM)';
      const nums = v ? `: Limit ${v.limit}, Used ${v.used}, Requested ${v.requested}` : '';
      const wait = waitText ? ` Please try again in ${waitText}.` : '';
      const type = v?.metric === 'requests' || !v ? 'requests' : 'tokens';
      return {
        status: 429,
        errorType: 'rate_limit_exceeded',
        body: openAIErrorBody(
          e.message ??
            `Rate limit reached for ${ctx.model} in organization org-${ctx.org} on ${dim}${nums}.${wait} Visit ${brand.rateLimitUrl} to learn more.`,
          type,
          null,
          'rate_limit_exceeded',
        ),
      };
    }
    case 'request_too_large': {
      const dim = v ? dimensionText(v.metric, v.rule.windowMs) : 'tokens per min (TPM)';
      return {
        status: 429,
        errorType: 'rate_limit_exceeded',
        body: openAIErrorBody(
          `Request too large for ${ctx.model} in organization org-${ctx.org} on ${dim}: Limit ${v?.limit ?? 0}, Requested ${v?.requested ?? 0}. The input or output tokens must be reduced in order to run successfully. Visit ${brand.rateLimitUrl} to learn more.`,
          'tokens',
          null,
          'rate_limit_exceeded',
        ),
      };
    }
    case 'quota_exhausted':
      return {
        status: 429,
        errorType: 'insufficient_quota',
        body: openAIErrorBody(
          e.message ?? OPENAI_MESSAGES.insufficientQuota,
          'insufficient_quota',
          null,
          'insufficient_quota',
        ),
      };
    case 'slow_down':
      return {
        status: 429,
        errorType: 'slow_down',
        body: openAIErrorBody(e.message ?? OPENAI_MESSAGES.slowDown, 'rate_limit_error', null, 'slow_down'),
      };
    case 'capacity':
      return {
        status: 503,
        errorType: 'server_is_overloaded',
        body: openAIErrorBody(
          e.message ?? OPENAI_MESSAGES.overloaded,
          'service_unavailable_error',
          null,
          'server_is_overloaded',
        ),
      };
    case 'server_error':
      return {
        status: 500,
        errorType: 'server_error',
        body: openAIErrorBody(e.message ?? OPENAI_MESSAGES.serverError, 'server_error', null, null),
      };
    case 'bad_gateway':
      return {
        status: 502,
        errorType: 'bad_gateway',
        body: cloudflarePage(502, 'Bad Gateway'),
        contentType: 'text/html',
      };
    case 'timeout':
      return {
        status: 504,
        errorType: 'gateway_timeout',
        body: cloudflarePage(504, 'Gateway Time-out'),
        contentType: 'text/html',
      };
    case 'overloaded':
    case 'unavailable':
      return {
        status: 503,
        errorType: 'server_is_overloaded',
        body: openAIErrorBody(
          e.message ?? OPENAI_MESSAGES.overloaded,
          'service_unavailable_error',
          null,
          'server_is_overloaded',
        ),
      };
  }
}

/**
 * Encodes an error for an OpenAI-shaped vendor, handling every hint form: native forms are
 * `nativeForms` (e.g. reset headers and message text), explicit forms override them.
 */
export function encodeOpenAIShapedError(
  e: ErrorSpec,
  views: LimitView[],
  ctx: EncodeContext,
  opts: {
    rateLimitHeaders: (views: LimitView[], headers: HeaderMap) => HeaderMap;
    nativeRetryAfter: boolean;
    /** Where a 429's wait is natively stated besides headers. */
    messageWait: boolean;
    /** Metrics whose reset the vendor's headers show (default requests and tokens). */
    resetMetrics?: Array<'requests' | 'tokens' | 'concurrency'>;
    /** Whether a vendor-form wait is also written into the reset headers (default true). */
    vendorResetHint?: boolean;
    style?: (e: ErrorSpec, ctx: EncodeContext, waitText: string | undefined) => OpenAIStyleError;
  },
): EncodedError {
  const headers: HeaderMap = {};
  const hint = e.hint;
  let sent: HintSent | undefined;
  let shownViews = views;
  let waitText: string | undefined;
  const violated = e.violation?.metric ?? 'requests';
  const metric = violated === 'input-tokens' || violated === 'output-tokens' ? 'tokens' : violated;
  const resetMetrics = opts.resetMetrics ?? ['requests', 'tokens'];
  const shows = (m: (typeof resetMetrics)[number]) => views.some((v) => v.rule.metric === m);
  // An explicit reset-header hint needs a reset the vendor shows: the violated metric's, else another
  // one (Mistral shows only its token reset, docs/vendor-facts.md §6.1), as Azure does.
  const resetMetric = resetMetrics.includes(metric) && shows(metric) ? metric : undefined;
  const hintedMetric = resetMetric ?? (hint?.form === 'reset-header' ? resetMetrics.find(shows) : undefined);
  if (hint) {
    const form = hint.form;
    if (form === 'vendor' || form === 'reset-header') {
      if ((form === 'reset-header' || (e.kind === 'rate_limited' && opts.vendorResetHint !== false)) && hintedMetric) {
        shownViews = withResetHint(views, hintedMetric, hint);
        sent = { ms: hint.raw !== undefined ? Number.NaN : Math.max(0, hint.ms), form: 'reset-header' };
      }
      if (form === 'vendor' && opts.messageWait) waitText = hint.raw ?? formatGoDuration(hint.ms, 3);
      if (form === 'vendor' && opts.nativeRetryAfter)
        sent = writeRetryHeaders({ ...hint, form: 'seconds' }, ctx, headers);
    } else if (form === 'body') {
      waitText = hint.raw ?? formatGoDuration(bodyHintMs(hint, ctx), 3);
      sent = { ms: bodyHintMs(hint, ctx), form: 'body' };
    } else if (form !== 'none') {
      sent = writeRetryHeaders(hint, ctx, headers);
    }
  }
  const styled = (opts.style ?? openAIStyleError)(e, ctx, waitText);
  // With no reset header to carry it, a rate-limited 429's wait is still stated in its message.
  if (
    sent === undefined &&
    waitText !== undefined &&
    hint?.form === 'vendor' &&
    e.kind === 'rate_limited' &&
    !e.message
  )
    sent = { ms: hint.raw !== undefined ? bodyHintMs(hint, ctx) : Math.ceil(hint.ms), form: 'body' };
  headers['content-type'] = styled.contentType ?? 'application/json';
  if (hint?.form !== 'none' && styled.status !== 502 && styled.status !== 504)
    opts.rateLimitHeaders(shownViews, headers);
  if (e.shouldRetry !== undefined) headers['x-should-retry'] = String(e.shouldRetry);
  return { status: e.status ?? styled.status, headers, body: styled.body, hintSent: sent, errorType: styled.errorType };
}

/**
 * What every OpenAI-compatible vendor shares: chat and models paths under `prefix`, Bearer auth,
 * OpenAI's validation, completion and chunk shapes, in-stream errors and keep-alive filler.
 */
export function openAICompatibleBase(
  prefix: string,
  flavor: OpenAIFlavor = {},
  ownedBy = 'system',
  apis: Partial<Record<OpenAIApi, ApiSurface>> = { embeddings: embeddingsApi },
) {
  const kinds = Object.keys(apis) as OpenAIApi[];
  return {
    completionId: (ctx: EncodeContext) => `chatcmpl-${randomAlnum(ctx.rng, 29)}`,
    route: (method: string, path: string) => routeOpenAIPaths(method, path, prefix, kinds),
    apis,
    credential: (req: SimRequest) => bearerToken(req.headers.authorization),
    parse: parseOpenAIChat,
    completion: (c: Completion, ctx: EncodeContext) => encodeOpenAICompletion(c, ctx, flavor),
    stream: (c: Completion, ctx: EncodeContext, includeUsage: boolean) =>
      openAIStreamFrames(c, ctx, includeUsage, flavor),
    streamError: openAIStreamError,
    models: (names: readonly string[], ctx: EncodeContext) => encodeOpenAIModels(names, ownedBy, ctx.now),
    keepAlive: (stream: boolean) => (stream ? ': keep-alive\n\n' : '\n'),
  } satisfies Partial<VendorProfile>;
}

const OPENAI_USAGE_DETAILS =
  ',"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}';

/**
 * OpenAI: Bearer auth, `x-ratelimit-*` headers with Go-duration resets on every response,
 * `max(input, max_tokens)` token admission, refused requests still counted.
 * @see https://platform.openai.com/docs/guides/rate-limits
 * @see https://platform.openai.com/docs/guides/error-codes
 */
export const openaiProfile: VendorProfile = {
  id: 'openai',
  modelKinds: true,
  title: 'OpenAI',
  defaults: {
    algorithm: { requests: 'token-bucket', tokens: 'token-bucket' },
    tokenAdmission: 'max(input,max_tokens)',
    chargeOutputToTokens: false,
    countRejected: true,
    tokensPerFrame: 1,
  },
  ...openAICompatibleBase('/v1', { extraFields: openAIExtra, usageDetails: OPENAI_USAGE_DETAILS }, 'system', {
    responses: responsesApi,
    embeddings: embeddingsApi,
  }),
  baseUrl: (root) => `${root}/v1`,
  envLines: (baseUrl, key) => [
    ['OPENAI_BASE_URL', baseUrl],
    ['OPENAI_API_KEY', key],
  ],
  error: (e, views, ctx) =>
    encodeOpenAIShapedError(e, views, ctx, {
      rateLimitHeaders: (v, h) => xRateLimitHeaders(v, h, 'shortest', ctx.options.usageBasedHeaders === true),
      nativeRetryAfter: ctx.options.retryAfterOn429 === true,
      messageWait: true,
    }),
  rateLimitHeaders: (views, ctx) => xRateLimitHeaders(views, {}, 'shortest', ctx.options.usageBasedHeaders === true),
  commonHeaders: (ctx) => ({
    'x-request-id': `req_${ctx.requestId}`,
    'openai-organization': `org-${ctx.org}`,
    'openai-processing-ms': String(Math.round(ctx.processingMs ?? 0)),
    'openai-version': '2020-10-01',
  }),
};

const extras = new Map<string, string>();

// The fields after `choices`, stable per provider and model (a deployment fingerprint); cached
// off the hot path.
function openAIExtra(ctx: EncodeContext): string {
  const key = `${ctx.providerId}\u0000${ctx.model}`;
  let extra = extras.get(key);
  if (extra === undefined) {
    extra = `"service_tier":"default","system_fingerprint":"fp_${stableHex(`${ctx.providerId}/${ctx.model}`, 10)}"`;
    if (extras.size < 10_000) extras.set(key, extra);
  }
  return extra;
}
