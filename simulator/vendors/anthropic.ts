// Over 300 lines on purpose: a vendor profile keeps every shape of one vendor (routes, auth,
// bodies, streams, headers, errors) in one file, the only place that vendor's wire format lives.
import type { Metric } from '../quota/meter.js';
import type { LimitView } from '../quota/quota-set.js';
import { bodyHintMs, writeRetryHeaders, type HintSent } from './hint.js';
import { pickView, tightestView, withResetHint } from './limit-views.js';
import { bearerToken } from './openai-compatible.js';
import { messageJson, messageStreamEvents, parseMessagesBody, type StreamEvent } from './anthropic-messages.js';
import type { EncodeContext, EncodedError, ErrorSpec, HeaderMap, Route, VendorProfile } from './types.js';
import { perWindow } from './window-phrase.js';
import { formatRfc3339, randomAlnum, stableUuid } from './wire-format.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function requestId(ctx: EncodeContext): string {
  return `req_011C${ctx.requestId.slice(0, 20)}`;
}

function envelope(type: string, message: string, ctx: EncodeContext | null, extra?: Record<string, unknown>): string {
  return JSON.stringify({ type: 'error', error: { type, message, ...extra }, request_id: ctx ? requestId(ctx) : null });
}

const TOKEN_METRICS: Metric[] = ['tokens', 'input-tokens', 'output-tokens'];

// A family's three header names, made once rather than in every answer.
const familyNames = (name: string) =>
  ['limit', 'remaining', 'reset'].map((part) => `anthropic-ratelimit-${name}-${part}`) as [string, string, string];
const REQUESTS = familyNames('requests');
const TOKENS = familyNames('tokens');
const INPUT_TOKENS = familyNames('input-tokens');
const OUTPUT_TOKENS = familyNames('output-tokens');

function setFamily(headers: HeaderMap, names: [string, string, string], v: LimitView | undefined, now: number): void {
  if (!v) return;
  headers[names[0]] = String(v.limit);
  headers[names[1]] = String(v.remaining);
  headers[names[2]] = v.rawReset ?? formatRfc3339(now + v.resetInMs);
}

/**
 * `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`,
 * resets as RFC 3339 instants; `tokens-*` is the most restrictive token limit in effect.
 * @see https://docs.anthropic.com/en/api/rate-limits#response-headers
 */
function anthropicRateLimitHeaders(views: LimitView[], headers: HeaderMap, now: number): HeaderMap {
  setFamily(headers, REQUESTS, pickView(views, 'requests'), now);
  setFamily(headers, TOKENS, tightestView(views, TOKEN_METRICS), now);
  setFamily(headers, INPUT_TOKENS, pickView(views, 'input-tokens'), now);
  setFamily(headers, OUTPUT_TOKENS, pickView(views, 'output-tokens'), now);
  return headers;
}

/** The metrics whose `anthropic-ratelimit-*-reset` headers exist (§3.1). */
const RESET_FAMILIES: readonly Metric[] = ['requests', 'tokens', 'input-tokens', 'output-tokens'];

function rateLimitMessage(e: ErrorSpec, ctx: EncodeContext): string {
  const v = e.violation;
  const what =
    !v || v.metric === 'requests'
      ? `${v?.limit ?? 50} requests ${perWindow(v?.rule.windowMs ?? 60_000)}`
      : `${v.limit.toLocaleString('en-US')} ${v.metric === 'output-tokens' ? 'output tokens' : 'input tokens'} ${perWindow(v.rule.windowMs)}`;
  // The organisation is named whatever the limit's scope: every real text does (§3.2, §20.8).
  return `This request would exceed the rate limit for your organization (${stableUuid(ctx.org)}) of ${what}. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase.`;
}

/**
 * `x-should-retry` as captured: `true` on a 529 (anthropic-sdk-typescript#616) and on a rate-limit
 * 429 (#357), and on the other 5xx (assumed: the SDKs retry those anyway); on the other 4xx it is
 * UNCONFIRMED, so `options.shouldRetryHeader` decides (`false-on-4xx`), and `never` drops it.
 */
function shouldRetryHeader(e: ErrorSpec, status: number, ctx: EncodeContext): boolean | undefined {
  const mode = ctx.options.shouldRetryHeader ?? 'observed';
  if (mode === 'never') return undefined;
  if (status >= 500 || (status === 429 && e.kind !== 'quota_exhausted')) return true;
  return mode === 'false-on-4xx' ? false : undefined;
}

function encodeAnthropicError(e: ErrorSpec, views: LimitView[], ctx: EncodeContext): EncodedError {
  const headers: HeaderMap = { 'content-type': 'application/json' };
  let status: number;
  let body: string;
  let errorType: string;
  let limitHeaders = true;
  switch (e.kind) {
    case 'invalid_api_key':
      [status, errorType, body] = [
        401,
        'authentication_error',
        envelope('authentication_error', 'invalid x-api-key', ctx),
      ];
      break;
    case 'missing_api_key':
      [status, errorType, body] = [
        401,
        'authentication_error',
        envelope('authentication_error', 'x-api-key header is required', ctx),
      ];
      break;
    case 'bad_json':
      [status, errorType, body] = [
        400,
        'invalid_request_error',
        envelope(
          'invalid_request_error',
          'There was an error parsing the body of your request. Please make sure it is valid JSON.',
          ctx,
        ),
      ];
      break;
    case 'invalid_request':
      [status, errorType, body] = [
        400,
        'invalid_request_error',
        envelope('invalid_request_error', e.message ?? 'Invalid request', ctx),
      ];
      break;
    case 'model_not_found':
    case 'wrong_model_kind': // not refused by this vendor's profile (no source); an unknown model's answer
      [status, errorType, body] = [404, 'not_found_error', envelope('not_found_error', `model: ${ctx.model}`, ctx)];
      break;
    case 'not_found':
      [status, errorType, body] = [404, 'not_found_error', envelope('not_found_error', 'Not Found', ctx)];
      break;
    case 'payload_too_large':
      [status, errorType, body] = [
        413,
        'request_too_large',
        envelope('request_too_large', 'Request exceeds the maximum allowed number of bytes.', ctx),
      ];
      break;
    case 'slow_down':
      // An acceleration ("ramp") limit: SDK 1.x raises RampLimitExceededError for this error_code.
      [status, errorType, body] = [
        429,
        'ramp_limit_exceeded',
        envelope(
          'rate_limit_error',
          e.message ??
            "This request would exceed your organization's ramp limit: usage is growing too quickly. Please increase your usage gradually and try again later.",
          ctx,
          { details: { error_code: 'ramp_limit_exceeded' } },
        ),
      ];
      break;
    case 'rate_limited':
    case 'request_too_large':
    case 'capacity':
      [status, errorType, body] = [
        429,
        'rate_limit_error',
        envelope('rate_limit_error', e.message ?? rateLimitMessage(e, ctx), ctx),
      ];
      break;
    case 'quota_exhausted':
      // The spend cap shares rate_limit_error and is told apart by details and a missing retry-after.
      [status, errorType, body] = [
        429,
        'enforced_spend_limit_reached',
        envelope(
          'rate_limit_error',
          e.message ??
            'You have reached your specified API usage limits. You will regain access on the first of next month at 00:00 UTC.',
          ctx,
          { details: { error_code: 'enforced_spend_limit_reached' } },
        ),
      ];
      break;
    case 'overloaded':
      if ((e.status ?? 529) === 529) {
        // Byte-for-byte the captured 529: no request_id, no rate-limit headers, x-should-retry: true.
        [status, errorType, body] = [
          529,
          'overloaded_error',
          '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        ];
      } else {
        // Overload leaking as 500 api_error "Overloaded", as seen in the wild.
        [status, errorType, body] = [e.status!, 'api_error', envelope('api_error', 'Overloaded', null)];
      }
      limitHeaders = false;
      break;
    case 'server_error':
    case 'bad_gateway':
    case 'unavailable':
      [status, errorType, body] = [
        e.kind === 'server_error' ? 500 : e.kind === 'bad_gateway' ? 502 : 503,
        'api_error',
        envelope('api_error', 'Internal server error', ctx),
      ];
      limitHeaders = false;
      break;
    case 'timeout':
      [status, errorType, body] = [504, 'timeout_error', envelope('timeout_error', 'Request timed out', ctx)];
      limitHeaders = false;
      break;
  }
  const hint = e.hint;
  let sent: HintSent | undefined;
  let shown = views;
  if (hint && e.kind !== 'quota_exhausted') {
    if (hint.form === 'vendor') {
      if (status === 429) sent = writeRetryHeaders({ ...hint, form: 'seconds' }, ctx, headers);
    } else if (hint.form === 'reset-header') {
      // The violated limit's reset carries the wait, else any limit shown; with none, nothing is sent.
      const metric = [e.violation?.metric ?? 'requests', ...RESET_FAMILIES].find((m) =>
        views.some((v) => v.rule.metric === m),
      );
      if (metric) {
        shown = withResetHint(views, metric, hint);
        sent = {
          ms: hint.raw !== undefined ? Number.NaN : Math.ceil((ctx.now + Math.max(0, hint.ms)) / 1000) * 1000 - ctx.now,
          form: 'reset-header',
        };
      }
      limitHeaders = true;
    } else if (hint.form === 'body') {
      // Anthropic never states a wait in its body; the message gets one so the form can be tested.
      body = body.replace(
        /"message":"([^"]*)"/,
        (_m, text: string) =>
          `"message":${JSON.stringify(`${text} Please try again in ${hint.raw ?? `${Math.ceil(hint.ms / 1000)}s`}.`)}`,
      );
      sent = { ms: hint.raw !== undefined ? bodyHintMs(hint, ctx) : Math.ceil(hint.ms / 1000) * 1000, form: 'body' };
    } else if (hint.form !== 'none') {
      sent = writeRetryHeaders(hint, ctx, headers);
    }
  }
  if (limitHeaders && hint?.form !== 'none') anthropicRateLimitHeaders(shown, headers, ctx.now);
  const shouldRetry = e.shouldRetry ?? shouldRetryHeader(e, status, ctx);
  if (shouldRetry !== undefined) headers['x-should-retry'] = String(shouldRetry);
  return { status: e.status ?? status, headers, body, hintSent: sent, errorType };
}

/**
 * Anthropic Messages API: `x-api-key` plus `anthropic-version`, `max_tokens` required,
 * `anthropic-ratelimit-*` headers with RFC 3339 resets, `retry-after` on 429, 529
 * `overloaded_error` with `x-should-retry: true`, SSE events with `ping`.
 * @see https://docs.anthropic.com/en/api/errors
 */
export const anthropicProfile: VendorProfile = {
  id: 'anthropic',
  title: 'Anthropic',
  defaults: {
    algorithm: {
      requests: 'token-bucket',
      tokens: 'token-bucket',
      'input-tokens': 'token-bucket',
      'output-tokens': 'token-bucket',
    },
    tokenAdmission: 'input',
    chargeOutputToTokens: true,
    countRejected: false,
    tokensPerFrame: 1,
  },
  completionId: (ctx) => `msg_01${randomAlnum(ctx.rng, 22)}`,
  baseUrl: (root) => root,
  envLines: (baseUrl, key) => [
    ['ANTHROPIC_BASE_URL', baseUrl],
    ['ANTHROPIC_API_KEY', key],
  ],
  route(method, path): Route {
    if (path === '/v1/messages') return method === 'POST' ? { kind: 'chat' } : { kind: 'not-found', method, path };
    if (path === '/v1/models' && method === 'GET') return { kind: 'models' };
    return { kind: 'not-found', method, path };
  },
  // `x-api-key` is the documented header; SDK 1.x sends the key as `Authorization: Bearer`.
  credential: (req) => req.headers['x-api-key'] ?? bearerToken(req.headers.authorization),
  preflight(req) {
    if (!req.headers['anthropic-version'])
      return { kind: 'invalid_request', message: 'anthropic-version: header is required' };
    return undefined;
  },
  parse: (_route, body) => {
    if (!isObject(body)) return { kind: 'invalid_request', message: 'Input should be a valid dictionary' };
    if (typeof body.model !== 'string' || !body.model)
      return { kind: 'invalid_request', message: 'model: Field required' };
    return parseMessagesBody(body, body.model);
  },
  completion: (c) => messageJson(c),
  stream(c) {
    const ev = ([name, data]: StreamEvent) => `event: ${name}\ndata: ${data}\n\n`;
    const events = messageStreamEvents(c);
    return {
      head: events.head.map(ev),
      content: (from, to) => ev(events.content(from, to)),
      tail: events.tail.map(ev),
    };
  },
  streamError(e) {
    const [type, message] =
      e.kind === 'overloaded'
        ? ['overloaded_error', 'Overloaded']
        : e.kind === 'rate_limited'
          ? ['rate_limit_error', 'Rate limited']
          : ['api_error', 'Internal server error'];
    return `event: error\ndata: {"type":"error","error":{"type":"${type}","message":"${message}"}}\n\n`;
  },
  error: encodeAnthropicError,
  models: (names, ctx) =>
    JSON.stringify({
      data: names.map((id) => ({ type: 'model', id, display_name: id, created_at: new Date(ctx.now).toISOString() })),
      has_more: false,
      first_id: names[0] ?? null,
      last_id: names[names.length - 1] ?? null,
    }),
  rateLimitHeaders: (views, ctx) => anthropicRateLimitHeaders(views, {}, ctx.now),
  commonHeaders: (ctx) => ({
    'request-id': requestId(ctx),
    'anthropic-organization-id': stableUuid(ctx.org),
  }),
  keepAlive: (stream) => (stream ? ': keep-alive\n\n' : '\n'),
};
