// Over 300 lines on purpose: a vendor profile keeps every shape of one vendor (routes, auth,
// bodies, streams, headers, errors) in one file, the only place that vendor's wire format lives.
import type { LimitView } from '../quota/quota-set.js';
import { bodyHintMs, writeRetryHeaders, type HintSent } from './hint.js';
import type {
  ToolCallSpec,
  ChatRequest,
  Completion,
  EncodeContext,
  EncodedError,
  ErrorSpec,
  HeaderMap,
  Route,
  StreamFrames,
  VendorProfile,
} from './types.js';
import { formatSecondsText, randomAlnum } from './wire-format.js';
import { checkGeminiToolTurns, endsWithToolResult, geminiToolOffers } from './tool-calls.js';
import { geminiEmbeddingsApi } from './gemini-embeddings.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const MODEL_PATH_RE =
  /^\/(v1beta|v1)\/models\/([^/:]+):(generateContent|streamGenerateContent|embedContent|batchEmbedContents)$/;

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  402: 'RESOURCE_EXHAUSTED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
  529: 'UNAVAILABLE',
};

// Google APIs pretty-print their JSON error bodies.
export function googleError(code: number, message: string, details?: unknown[]): string {
  return JSON.stringify(
    { error: { code, message, status: STATUS_NAMES[code] ?? 'UNKNOWN', ...(details ? { details } : {}) } },
    null,
    2,
  );
}

function partsText(parts: unknown): string | undefined {
  if (!Array.isArray(parts)) return undefined;
  let out = '';
  for (const p of parts) {
    if (!isObject(p)) return undefined;
    if (typeof p.text === 'string') out += p.text;
  }
  return out;
}

/**
 * The Gemini API's answer to a `cachedContent` it does not hold: 403 PERMISSION_DENIED (not a 404),
 * for a name never created, expired or another project's (docs/vendor-facts.md §20.7). The
 * simulator creates no explicit caches, so every name is unknown.
 */
const UNKNOWN_CACHE: ErrorSpec = {
  kind: 'not_found',
  status: 403,
  message: 'CachedContent not found (or permission denied)',
};

/**
 * Validates a `generateContent` body as the Gemini API (AI Studio) does: {@link parseGemini}, and
 * an explicit cache it does not hold refused.
 * @see https://ai.google.dev/gemini-api/docs/caching
 */
export function parseGeminiStudio(route: Route & { kind: 'chat' }, body: unknown): ChatRequest | ErrorSpec {
  if (isObject(body) && body.cachedContent !== undefined && body.cachedContent !== null) {
    if (typeof body.cachedContent !== 'string')
      // Google's generic proto-JSON type error (the field's own wording is unsourced).
      return {
        kind: 'invalid_request',
        message: `Invalid value at 'cached_content' (TYPE_STRING), ${JSON.stringify(body.cachedContent)}`,
      };
    return UNKNOWN_CACHE;
  }
  return parseGemini(route, body);
}

/**
 * Validates a `generateContent` body (`contents` required).
 * @see https://ai.google.dev/api/generate-content
 */
export function parseGemini(route: Route & { kind: 'chat' }, body: unknown): ChatRequest | ErrorSpec {
  if (!isObject(body))
    return { kind: 'invalid_request', message: 'Invalid JSON payload received. Expected an object.' };
  if (body.contents === undefined)
    return { kind: 'invalid_request', message: '* GenerateContentRequest.contents: contents is not specified\n' };
  if (!Array.isArray(body.contents) || body.contents.length === 0) {
    return { kind: 'invalid_request', message: '* GenerateContentRequest.contents: contents is not specified\n' };
  }
  let promptText = '';
  if (body.systemInstruction !== undefined) {
    const sys = isObject(body.systemInstruction) ? partsText(body.systemInstruction.parts) : undefined;
    if (sys === undefined)
      return {
        kind: 'invalid_request',
        message:
          'Invalid JSON payload received. Unknown name "systemInstruction": Proto field is not repeating, cannot start list.',
      };
    promptText = sys;
  }
  for (let i = 0; i < body.contents.length; i++) {
    const c = body.contents[i];
    const text = isObject(c) ? partsText(c.parts) : undefined;
    if (text === undefined)
      return {
        kind: 'invalid_request',
        message: `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`,
      };
    promptText += (promptText ? '\n' : '') + text;
  }
  const config = isObject(body.generationConfig) ? body.generationConfig : {};
  const max = config.maxOutputTokens;
  if (max !== undefined && (!Number.isInteger(max) || (max as number) < 1)) {
    return {
      kind: 'invalid_request',
      message: '* GenerateContentRequest.generation_config.max_output_tokens: max_output_tokens must be positive.\n',
    };
  }
  const toolTurns = checkGeminiToolTurns(body.contents);
  if (toolTurns) return toolTurns;
  return {
    tools: geminiToolOffers(body),
    afterToolResult: endsWithToolResult('gemini', body.contents),
    model: route.model!,
    stream: route.stream === true,
    includeUsage: true,
    maxTokens: max as number | undefined,
    promptText,
    messageCount: body.contents.length,
  };
}

function usageMetadata(c: Completion, final: boolean): string {
  const out = final ? c.tokens.length : 0;
  const cand = final ? `"candidatesTokenCount":${out},` : '';
  // `promptTokenCount` includes the cached part, `cachedContentTokenCount` is present only on a hit.
  const cached = c.cacheRead
    ? `"cachedContentTokenCount":${c.cacheRead},"cacheTokensDetails":[{"modality":"TEXT","tokenCount":${c.cacheRead}}],`
    : '';
  return `{"promptTokenCount":${c.inputTokens},${cand}${cached}"totalTokenCount":${c.inputTokens + out},"promptTokensDetails":[{"modality":"TEXT","tokenCount":${c.inputTokens}}]}`;
}

function candidate(text: string, finish?: string, call?: ToolCallSpec): string {
  // Gemini sends a function call whole, in one part (finish reason STOP).
  const fc = call ? `,{"functionCall":{"name":${JSON.stringify(call.name)},"args":${call.argsJson}}}` : '';
  return `[{"content":{"parts":[{"text":${JSON.stringify(text)}}${fc}],"role":"model"}${finish ? `,"finishReason":"${finish}"` : ''},"index":0}]`;
}

function responseId(c: Completion): string {
  return c.id;
}

/** The quota a limit maps to, named as Gemini's QuotaFailure names it. */
function quotaFor(
  rule: LimitView['rule'] | undefined,
  model: string,
  freeTier: boolean,
): { quotaMetric: string; quotaId: string; quotaDimensions: Record<string, string> } {
  const suffix = freeTier ? '-FreeTier' : '';
  const day = rule !== undefined && rule.windowMs >= 86_400_000;
  const tokens = rule !== undefined && rule.metric !== 'requests';
  const quotaMetric = tokens
    ? `generativelanguage.googleapis.com/generate_content${freeTier ? '_free_tier' : ''}_input_token_count`
    : freeTier
      ? 'generativelanguage.googleapis.com/generate_content_free_tier_requests'
      : 'generativelanguage.googleapis.com/generate_requests_per_model';
  const quotaId = tokens
    ? `GenerateContentInputTokensPerModelPer${day ? 'Day' : 'Minute'}${suffix}`
    : `GenerateRequestsPer${day ? 'Day' : 'Minute'}PerProjectPerModel${suffix}`;
  return { quotaMetric, quotaId, quotaDimensions: { location: 'global', model } };
}

/** An error inside a stream: a chunk whose JSON has a top-level `error` (js-genai raises it as ApiError). */
function geminiStreamErrorJson(e: ErrorSpec): string {
  const [code, status, message] =
    e.kind === 'rate_limited'
      ? [429, 'RESOURCE_EXHAUSTED', QUOTA_MESSAGE]
      : e.kind === 'overloaded' || e.kind === 'unavailable'
        ? [503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.']
        : [500, 'INTERNAL', 'An internal error has occurred.'];
  return JSON.stringify({ error: { code, message, status } });
}

const QUOTA_MESSAGE =
  'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.';

function encodeGeminiError(e: ErrorSpec, _views: LimitView[], ctx: EncodeContext): EncodedError {
  const headers: HeaderMap = { 'content-type': 'application/json; charset=UTF-8' };
  const freeTier = ctx.options.tier !== 'paid';
  let sent: HintSent | undefined;
  if (e.hint && (e.hint.form === 'seconds' || e.hint.form === 'ms' || e.hint.form === 'http-date'))
    sent = writeRetryHeaders(e.hint, ctx, headers);
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
      return finish(
        400,
        googleError(400, 'API key not valid. Please pass a valid API key.', [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'API_KEY_INVALID',
            domain: 'googleapis.com',
            metadata: { service: 'generativelanguage.googleapis.com' },
          },
          {
            '@type': 'type.googleapis.com/google.rpc.LocalizedMessage',
            locale: 'en-US',
            message: 'API key not valid. Please pass a valid API key.',
          },
        ]),
        'API_KEY_INVALID',
      );
    case 'missing_api_key':
      return finish(
        403,
        googleError(
          403,
          "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
        ),
        'PERMISSION_DENIED',
      );
    case 'bad_json':
      return finish(400, googleError(400, 'Invalid JSON payload received. Unexpected token.'), 'INVALID_ARGUMENT');
    case 'invalid_request':
      return finish(400, googleError(400, e.message ?? 'Request contains an invalid argument.'), 'INVALID_ARGUMENT');
    case 'model_not_found':
    case 'wrong_model_kind':
      return finish(
        404,
        googleError(
          404,
          `models/${ctx.model} is not found for API version v1beta, or is not supported for ${e.operation === 'embeddings' ? 'embedContent' : 'generateContent'}. Call ListModels to see the list of available models and their supported methods.`,
        ),
        'NOT_FOUND',
      );
    case 'not_found': {
      // Google answers some missing resources 403 (an unknown `cachedContent`): the body's code follows.
      const code = e.status ?? 404;
      return finish(
        404,
        googleError(code, e.message ?? 'Requested entity was not found.'),
        STATUS_NAMES[code] ?? 'NOT_FOUND',
      );
    }
    case 'payload_too_large':
      return finish(413, googleError(400, 'Request payload size exceeds the limit.'), 'INVALID_ARGUMENT');
    case 'rate_limited':
    case 'request_too_large':
    case 'quota_exhausted':
    case 'slow_down':
    case 'capacity': {
      const hint = e.hint;
      const details: unknown[] = [
        {
          '@type': 'type.googleapis.com/google.rpc.Help',
          links: [
            {
              description: 'Learn more about Gemini API quotas',
              url: 'https://ai.google.dev/gemini-api/docs/rate-limits',
            },
          ],
        },
      ];
      const q = quotaFor(
        e.violation?.rule ??
          (e.kind === 'quota_exhausted'
            ? ({ metric: 'requests', windowMs: 86_400_000 } as LimitView['rule'])
            : undefined),
        ctx.model,
        freeTier,
      );
      details.push({ '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [q] });
      let message = e.message ?? QUOTA_MESSAGE;
      // RetryInfo lives in the body: Gemini sends no rate-limit or Retry-After headers.
      if (hint && (hint.form === 'vendor' || hint.form === 'body')) {
        const ms = bodyHintMs(hint, ctx);
        const delay = hint.raw ?? `${Math.max(0, Math.ceil(ms / 1000))}s`;
        details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: delay });
        if (ctx.options.retryInMessage === true) message += `\nPlease retry in ${hint.raw ?? formatSecondsText(ms)}.`;
        sent = { ms: hint.raw !== undefined ? ms : Math.max(0, Math.ceil(ms / 1000)) * 1000, form: 'body' };
      }
      return finish(
        429,
        googleError(e.status ?? 429, message, details),
        e.kind === 'quota_exhausted' ? q.quotaId : 'RESOURCE_EXHAUSTED',
      );
    }
    case 'overloaded':
    case 'unavailable':
      return finish(
        503,
        googleError(e.status ?? 503, e.message ?? 'The model is overloaded. Please try again later.'),
        'UNAVAILABLE',
      );
    case 'bad_gateway':
      return finish(502, googleError(502, e.message ?? 'Bad Gateway'), 'UNAVAILABLE');
    case 'server_error':
      return finish(
        500,
        googleError(
          e.status ?? 500,
          e.message ??
            'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
        ),
        'INTERNAL',
      );
    case 'timeout':
      return finish(
        504,
        googleError(504, e.message ?? 'The request timed out. Please try again.'),
        'DEADLINE_EXCEEDED',
      );
  }
}

/**
 * Gemini API (AI Studio): `x-goog-api-key` or `?key=`, no rate-limit headers at all, the wait in
 * the body as `google.rpc.RetryInfo.retryDelay`, per-project fixed-window quotas with the daily
 * window resetting at midnight Pacific, `streamGenerateContent?alt=sse` without a `[DONE]`.
 * @see https://ai.google.dev/gemini-api/docs/rate-limits
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting
 */
export const geminiProfile: VendorProfile = {
  id: 'gemini',
  modelKinds: true,
  title: 'Google Gemini',
  resetHeaders: false,
  defaults: {
    algorithm: { requests: 'fixed-window', tokens: 'fixed-window', 'input-tokens': 'fixed-window' },
    dayWindowTimeZone: 'America/Los_Angeles',
    tokenAdmission: 'input',
    chargeOutputToTokens: false,
    countRejected: false,
    tokensPerFrame: 8,
  },
  completionId: (ctx) => randomAlnum(ctx.rng, 23),
  baseUrl: (root) => root,
  envLines: (baseUrl, key) => [
    ['GOOGLE_GEMINI_BASE_URL', baseUrl],
    ['GEMINI_API_KEY', key],
  ],
  route(method, path, query): Route {
    const m = MODEL_PATH_RE.exec(path);
    if (m) {
      if (method !== 'POST') return { kind: 'not-found', method, path };
      if (m[3] === 'embedContent' || m[3] === 'batchEmbedContents')
        return { kind: 'chat', api: 'embeddings', model: decodeURIComponent(m[2]!), meta: { method: m[3] } };
      const stream = m[3] === 'streamGenerateContent';
      return {
        kind: 'chat',
        model: decodeURIComponent(m[2]!),
        stream,
        meta: { alt: query.get('alt') ?? (stream ? 'json' : '') },
      };
    }
    if ((path === '/v1beta/models' || path === '/v1/models') && method === 'GET') return { kind: 'models' };
    return { kind: 'not-found', method, path };
  },
  credential: (req, query) => req.headers['x-goog-api-key'] ?? query.get('key') ?? undefined,
  parse: parseGeminiStudio,
  completion: (c) =>
    JSON.stringify(
      {
        candidates: [
          {
            content: {
              parts: [
                { text: c.tokens.join('') },
                ...(c.toolCall
                  ? [{ functionCall: { name: c.toolCall.name, args: JSON.parse(c.toolCall.argsJson) } }]
                  : []),
              ],
              role: 'model',
            },
            finishReason: c.finishReason === 'length' ? 'MAX_TOKENS' : 'STOP',
            index: 0,
          },
        ],
        usageMetadata: JSON.parse(usageMetadata(c, true)),
        modelVersion: c.model,
        responseId: responseId(c),
      },
      null,
      2,
    ),
  stream(c, ctx): StreamFrames {
    const sse = ctx.meta?.alt === 'sse';
    const frame = (text: string, finish: string | undefined, final: boolean) =>
      `{"candidates":${candidate(text, finish, final ? c.toolCall : undefined)},"usageMetadata":${usageMetadata(c, final)},"modelVersion":${JSON.stringify(c.model)},"responseId":${JSON.stringify(responseId(c))}}`;
    const finish = c.finishReason === 'length' ? 'MAX_TOKENS' : 'STOP';
    if (sse) {
      // Gemini frames SSE events with CRLF pairs and sends no terminator.
      return {
        head: [],
        content: (from, to) => `data: ${frame(c.tokens.slice(from, to).join(''), undefined, false)}\r\n\r\n`,
        tail: [`data: ${frame('', finish, true)}\r\n\r\n`],
      };
    }
    // Without alt=sse the stream is one JSON array written element by element: `[` opens it
    // before the first element. Between elements and before the closing `]` the layout is
    // UNCONFIRMED (docs/vendor-facts.md §17.3): `lines` (the default) puts each separator and the
    // `]` on a line of their own (`}\n,\r\n{`, `}\n]`), as Google's pretty-printed JSON does and
    // as Portkey's parser expects; `compact` writes `},\r\n{` and `}]`.
    const lines = ctx.options.arrayLayout !== 'compact';
    let opened = false;
    const next = () => (opened ? (lines ? '\n,\r\n' : ',\r\n') : ((opened = true), '['));
    const close = lines ? '\n]' : ']';
    return {
      head: [],
      content: (from, to) => next() + frame(c.tokens.slice(from, to).join(''), undefined, false),
      get tail() {
        return [`${next()}${frame('', finish, true)}${close}`];
      },
      // An error cutting the stream is the array's last element.
      error: (e) => `${next()}${geminiStreamErrorJson(e)}${close}`,
    };
  },
  streamError: (e) => `data: ${geminiStreamErrorJson(e)}\r\n\r\n`,
  apis: { embeddings: geminiEmbeddingsApi((e) => `data: ${geminiStreamErrorJson(e)}\r\n\r\n`) },
  error: encodeGeminiError,
  models: (names) =>
    JSON.stringify(
      {
        models: names.map((name) => ({
          name: `models/${name}`,
          version: '001',
          displayName: name,
          inputTokenLimit: 1048576,
          outputTokenLimit: 8192,
          supportedGenerationMethods: ['generateContent', 'countTokens'],
        })),
      },
      null,
      2,
    ),
  rateLimitHeaders: () => ({}),
  contentType: (stream, ctx) =>
    stream && ctx.meta?.alt === 'sse' ? 'text/event-stream' : 'application/json; charset=UTF-8',
  commonHeaders: (ctx) => ({
    vary: 'Origin, X-Origin, Referer',
    'server-timing': `gfet4t7; dur=${Math.round(ctx.processingMs ?? 0)}`,
    server: 'scaffolding on HTTPServer2',
  }),
  keepAlive: (stream) => (stream ? ': keep-alive\r\n\r\n' : '\n'),
};
