import type { LimitView } from '../quota/quota-set.js';
import { bodyHintMs, writeRetryHeaders, type HintSent } from './hint.js';
import { geminiProfile, googleError, parseGemini } from './gemini.js';
import { bearerToken } from './openai-compatible.js';
import type { EncodeContext, EncodedError, ErrorSpec, HeaderMap, Route, VendorProfile } from './types.js';

// `projects/{p}/locations/{l}/publishers/google/models/{m}`, or the express-mode
// `publishers/google/models/{m}` that takes an API key.
const MODEL_PATH_RE =
  /^\/(v1|v1beta1)\/(?:projects\/([^/]+)\/locations\/([^/]+)\/)?publishers\/google\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

const EXHAUSTED_MESSAGE =
  'Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.';

function modelName(ctx: EncodeContext): string {
  const project = ctx.meta?.project ?? 'project';
  const location = ctx.meta?.location ?? 'us-central1';
  return `projects/${project}/locations/${location}/publishers/google/models/${ctx.model}`;
}

/**
 * Vertex AI's errors: Google's envelope with the legacy `errors[]` list on 429s, and under
 * dynamic shared quota no RetryInfo (a 429 means shared capacity ran out, not your quota):
 * `options.retryInfo` adds it to vendor-form hints (UNCONFIRMED), the `body` form always does.
 */
function encodeVertexError(e: ErrorSpec, _views: LimitView[], ctx: EncodeContext): EncodedError {
  const headers: HeaderMap = { 'content-type': 'application/json; charset=UTF-8' };
  let sent: HintSent | undefined;
  const hint = e.hint;
  if (hint && (hint.form === 'seconds' || hint.form === 'ms' || hint.form === 'http-date'))
    sent = writeRetryHeaders(hint, ctx, headers);
  if (e.shouldRetry !== undefined) headers['x-should-retry'] = String(e.shouldRetry);
  const finish = (status: number, body: string, errorType: string): EncodedError => ({
    status: e.status ?? status,
    headers,
    body,
    hintSent: sent,
    errorType,
  });
  switch (e.kind) {
    case 'invalid_api_key':
    case 'missing_api_key':
      return finish(
        401,
        googleError(
          401,
          'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
        ),
        'UNAUTHENTICATED',
      );
    case 'model_not_found':
      return finish(
        404,
        googleError(
          404,
          `Publisher Model \`${modelName(ctx)}\` was not found or your project does not have access to it. Please ensure you are using a valid model version. For more information, see: https://cloud.google.com/vertex-ai/generative-ai/docs/learn/model-versions`,
        ),
        'NOT_FOUND',
      );
    case 'rate_limited':
    case 'request_too_large':
    case 'slow_down':
    case 'capacity':
    case 'quota_exhausted': {
      const message =
        e.message ??
        (e.kind === 'quota_exhausted'
          ? `Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute_per_project_per_base_model with base model: ${ctx.model}. Please submit a quota increase request. https://cloud.google.com/vertex-ai/docs/generative-ai/quotas-genai.`
          : EXHAUSTED_MESSAGE);
      const retryInfo = hint && (hint.form === 'body' || (hint.form === 'vendor' && ctx.options.retryInfo === true));
      const error: Record<string, unknown> = {
        code: 429,
        message,
        errors: [{ message, domain: 'global', reason: 'rateLimitExceeded' }],
        status: 'RESOURCE_EXHAUSTED',
      };
      if (retryInfo) {
        const ms = bodyHintMs(hint, ctx);
        const delay = hint.raw ?? `${Math.max(0, Math.ceil(ms / 1000))}s`;
        error.details = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: delay }];
        sent = { ms: hint.raw !== undefined ? ms : Math.max(0, Math.ceil(ms / 1000)) * 1000, form: 'body' };
      }
      return finish(429, JSON.stringify({ error }, null, 2), 'RESOURCE_EXHAUSTED');
    }
    default: {
      // The rest is phrased as the Gemini API phrases it (same Google envelope and statuses).
      const g = geminiProfile.error({ ...e, hint: undefined }, [], ctx);
      return { ...g, headers: { ...g.headers, ...headers }, hintSent: sent, status: e.status ?? g.status };
    }
  }
}

/**
 * Gemini on Vertex AI: `/v1/projects/{p}/locations/{l}/publishers/google/models/{m}:generateContent`
 * (and `v1beta1`, and express mode without the project), OAuth bearer tokens (or an express-mode
 * API key), Gemini's bodies and streams, no rate-limit headers, and 429 `RESOURCE_EXHAUSTED`
 * without RetryInfo under dynamic shared quota.
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/dynamic-shared-quota
 */
export const vertexAIProfile: VendorProfile = {
  id: 'vertex-ai',
  title: 'Google Vertex AI',
  defaults: {
    algorithm: { requests: 'fixed-window', tokens: 'fixed-window', 'input-tokens': 'fixed-window' },
    tokenAdmission: 'input',
    chargeOutputToTokens: false,
    countRejected: false,
    tokensPerFrame: 8,
  },
  resetHeaders: false,
  completionId: geminiProfile.completionId,
  baseUrl: (root) => root,
  envLines: (baseUrl, key) => [
    ['GOOGLE_VERTEX_BASE_URL', baseUrl],
    ['GOOGLE_CLOUD_PROJECT', 'throttlelab'],
    ['GOOGLE_CLOUD_LOCATION', 'us-central1'],
    ['GOOGLE_VERTEX_ACCESS_TOKEN', key],
  ],
  route(method, path, query): Route {
    const m = MODEL_PATH_RE.exec(path);
    if (!m) return { kind: 'not-found', method, path };
    if (method !== 'POST') return { kind: 'not-found', method, path };
    const stream = m[5] === 'streamGenerateContent';
    const meta: Record<string, string> = { alt: query.get('alt') ?? (stream ? 'json' : '') };
    if (m[2]) [meta.project, meta.location] = [decodeURIComponent(m[2]), decodeURIComponent(m[3]!)];
    return { kind: 'chat', model: decodeURIComponent(m[4]!), stream, meta };
  },
  credential: (req, query) =>
    bearerToken(req.headers.authorization) ?? req.headers['x-goog-api-key'] ?? query.get('key') ?? undefined,
  // Vertex's answer to an unknown cache is unsourced: `cachedContent` is not judged there.
  parse: parseGemini,
  completion: geminiProfile.completion,
  stream: geminiProfile.stream,
  streamError: geminiProfile.streamError,
  error: encodeVertexError,
  models: geminiProfile.models,
  rateLimitHeaders: () => ({}),
  contentType: geminiProfile.contentType,
  commonHeaders: (ctx) => ({
    vary: 'Origin, X-Origin, Referer',
    'server-timing': `gfet4t7; dur=${Math.round(ctx.processingMs ?? 0)}`,
    server: 'scaffolding on HTTPServer2',
  }),
  keepAlive: geminiProfile.keepAlive,
};
