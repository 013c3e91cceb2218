import type { LimitView } from '../quota/quota-set.js';
import { bodyHintMs, writeRetryHeaders, type HintSent } from './hint.js';
import { pickView } from './limit-views.js';
import { openAICompatibleBase, openAIStyleError } from './openai.js';
import { embeddingsApi } from './openai-embeddings.js';
import { responsesApi } from './openai-responses.js';
import type { ApiKind, EncodeContext, EncodedError, ErrorSpec, HeaderMap, Route, VendorProfile } from './types.js';
import { ceilSeconds, uuidFrom } from './wire-format.js';

const DEPLOYMENT_RE = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|responses|embeddings)$/;
const OPERATIONS: Record<string, { api?: ApiKind; operation: string }> = {
  'chat/completions': { operation: 'ChatCompletions_Create' },
  responses: { api: 'responses', operation: 'Responses_Create' },
  embeddings: { api: 'embeddings', operation: 'Embeddings_Create' },
};
const V1_RE = /^\/openai\/(v1\/)?(chat\/completions|responses|embeddings)$/;

function azureError(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

/**
 * Azure's limit headers: remaining and limit for requests (a 1 s/10 s window figure) and tokens,
 * integer-second token reset; `-1` everywhere when the service reports no limits.
 * @see https://learn.microsoft.com/en-us/azure/ai-services/openai/quotas-limits
 */
function azureRateLimitHeaders(views: LimitView[], headers: HeaderMap, ctx: EncodeContext): HeaderMap {
  if (ctx.options.unknownLimits === true) {
    headers['x-ratelimit-limit-tokens'] = '-1';
    headers['x-ratelimit-remaining-tokens'] = '-1';
    headers['x-ratelimit-reset-tokens'] = '0';
    return headers;
  }
  const req = pickView(views, 'requests');
  const tok = pickView(views, 'tokens');
  if (req) {
    headers['x-ratelimit-limit-requests'] = String(req.limit);
    headers['x-ratelimit-remaining-requests'] = String(req.remaining);
  }
  if (tok) {
    headers['x-ratelimit-limit-tokens'] = String(tok.limit);
    headers['x-ratelimit-remaining-tokens'] = String(tok.remaining);
    const name = ctx.options.hyphenatedResetHeader === true ? 'x-rate-limit-reset-tokens' : 'x-ratelimit-reset-tokens';
    headers[name] = tok.rawReset ?? String(ceilSeconds(tok.resetInMs));
  }
  return headers;
}

function throttleMessage(e: ErrorSpec, ctx: EncodeContext, waitSeconds: string | undefined): string {
  const retry = waitSeconds !== undefined ? ` Please retry after ${waitSeconds} seconds.` : '';
  if (e.kind === 'capacity') {
    return `The system is currently experiencing high demand and cannot process your request. Your request exceeds the maximum usage size allowed during peak load.${retry} For improved latency reliability, consider switching to Provisioned Throughput.`;
  }
  const kind = e.violation && e.violation.metric !== 'requests' ? 'token rate limit' : 'call rate limit';
  const version = ctx.meta?.apiVersion ?? '2024-10-21';
  return `Requests to the ${ctx.meta?.operation ?? 'ChatCompletions_Create'} Operation under Azure OpenAI API version ${version} have exceeded ${kind} of your current OpenAI S0 pricing tier.${retry} Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit.`;
}

function encodeAzureError(e: ErrorSpec, views: LimitView[], ctx: EncodeContext): EncodedError {
  const headers: HeaderMap = { 'content-type': 'application/json' };
  const throttled =
    e.kind === 'rate_limited' ||
    e.kind === 'capacity' ||
    e.kind === 'quota_exhausted' ||
    e.kind === 'slow_down' ||
    e.kind === 'request_too_large';
  if (!throttled) {
    return encodeAzureOther(e, views, ctx, headers);
  }
  const hint = e.hint;
  let sent: HintSent | undefined;
  let waitSeconds: string | undefined;
  if (hint) {
    if (hint.form === 'vendor') {
      // Azure states the wait three times: retry-after-ms, retry-after and the message text.
      waitSeconds = hint.raw ?? String(ceilSeconds(hint.ms));
      writeRetryHeaders({ ...hint, form: 'seconds' }, ctx, headers);
      sent = writeRetryHeaders({ ...hint, form: 'ms' }, ctx, headers);
    } else if (hint.form === 'body') {
      waitSeconds = hint.raw ?? String(ceilSeconds(bodyHintMs(hint, ctx)));
      sent = { ms: hint.raw !== undefined ? bodyHintMs(hint, ctx) : ceilSeconds(hint.ms) * 1000, form: 'body' };
    } else if (hint.form === 'reset-header') {
      // Only the token reset is published (§2.1): with no token quota, or limits reported as
      // unknown, there is nowhere to carry the wait and nothing is claimed.
      const carried = views.some((v) => v.rule.metric === 'tokens') && ctx.options.unknownLimits !== true;
      views = views.map((v) =>
        v.rule.metric === 'tokens'
          ? {
              ...v,
              remaining: 0,
              resetInMs: Math.max(0, hint.ms),
              ...(hint.raw !== undefined ? { rawReset: hint.raw } : {}),
            }
          : v,
      );
      if (carried)
        sent = {
          ms: hint.raw !== undefined ? Number.NaN : ceilSeconds(Math.max(0, hint.ms)) * 1000,
          form: 'reset-header',
        };
    } else if (hint.form !== 'none') {
      sent = writeRetryHeaders(hint, ctx, headers);
    }
  }
  if (hint?.form !== 'none') azureRateLimitHeaders(views, headers, ctx);
  headers['policy-id'] =
    e.violation && e.violation.metric === 'requests' ? 'DeploymentRatelimit-Call' : 'DeploymentRatelimit-Token';
  if (e.shouldRetry !== undefined) headers['x-should-retry'] = String(e.shouldRetry);
  return {
    status: e.status ?? 429,
    headers,
    body: azureError('429', e.message ?? throttleMessage(e, ctx, waitSeconds)),
    hintSent: sent,
    errorType: e.kind === 'capacity' ? 'capacity' : '429',
  };
}

function encodeAzureOther(e: ErrorSpec, views: LimitView[], ctx: EncodeContext, headers: HeaderMap): EncodedError {
  let status: number;
  let body: string;
  let errorType: string;
  switch (e.kind) {
    case 'invalid_api_key':
    case 'missing_api_key':
      status = 401;
      errorType = '401';
      body = azureError(
        '401',
        'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
      );
      break;
    case 'model_not_found':
      status = 404;
      errorType = 'DeploymentNotFound';
      body = azureError(
        'DeploymentNotFound',
        'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
      );
      break;
    case 'wrong_model_kind':
      status = 400;
      errorType = 'OperationNotSupported';
      body = azureError(
        'OperationNotSupported',
        `The ${e.operation === 'embeddings' ? 'embeddings' : 'chatCompletion'} operation does not work with the specified model, ${ctx.model}. Please choose different model and try again. You can learn more about which models can be used with each operation here: https://go.microsoft.com/fwlink/?linkid=2197993.`,
      );
      break;
    case 'not_found':
      status = 404;
      errorType = '404';
      body = azureError('404', 'Resource not found');
      break;
    case 'server_error':
      status = 500;
      errorType = 'InternalServerError';
      body = azureError(
        'InternalServerError',
        e.message ?? 'The service is temporarily unable to process your request. Please try again later.',
      );
      break;
    case 'overloaded':
    case 'unavailable':
      status = 503;
      errorType = 'ServiceUnavailable';
      body = azureError(
        'ServiceUnavailable',
        e.message ?? 'The service is temporarily unable to process your request. Please try again later.',
      );
      break;
    default: {
      // Validation errors pass through from the OpenAI service in its own envelope.
      const styled = openAIStyleError(e, ctx, undefined);
      status = styled.status;
      errorType = styled.errorType;
      body = styled.body;
      if (styled.contentType) headers['content-type'] = styled.contentType;
    }
  }
  if (
    e.hint &&
    e.hint.form !== 'vendor' &&
    e.hint.form !== 'none' &&
    e.hint.form !== 'body' &&
    e.hint.form !== 'reset-header'
  ) {
    const sent = writeRetryHeaders(e.hint, ctx, headers);
    if (e.shouldRetry !== undefined) headers['x-should-retry'] = String(e.shouldRetry);
    return { status: e.status ?? status, headers, body, hintSent: sent, errorType };
  }
  if (e.shouldRetry !== undefined) headers['x-should-retry'] = String(e.shouldRetry);
  return { status: e.status ?? status, headers, body, errorType };
}

/**
 * Azure OpenAI: `api-key` auth, deployments in the path with a required `api-version`,
 * `{"error":{"code":"429"}}` bodies whose message carries the wait, `retry-after-ms` and
 * `retry-after`, RPM enforced over short fixed windows.
 * @see https://learn.microsoft.com/en-us/azure/ai-services/openai/reference
 */
export const azureOpenAIProfile: VendorProfile = {
  id: 'azure-openai',
  modelKinds: true,
  title: 'Azure OpenAI',
  defaults: {
    algorithm: { requests: 'fixed-window', tokens: 'fixed-window' },
    tokenAdmission: 'input+max_tokens',
    chargeOutputToTokens: false,
    countRejected: false,
    tokensPerFrame: 1,
  },
  ...openAICompatibleBase('/openai/v1', { extraFields: azureExtra }, 'system', {
    responses: responsesApi,
    embeddings: embeddingsApi,
  }),
  baseUrl: (root) => root,
  envLines: (baseUrl, key) => [
    ['AZURE_OPENAI_ENDPOINT', baseUrl],
    ['AZURE_OPENAI_API_KEY', key],
    ['OPENAI_API_VERSION', '2024-10-21'],
  ],
  route(method, path, query): Route {
    const dep = DEPLOYMENT_RE.exec(path);
    if (dep) {
      if (!query.get('api-version') || method !== 'POST') return { kind: 'not-found', method, path };
      const op = OPERATIONS[dep[2]!]!;
      const meta = { apiVersion: query.get('api-version')!, operation: op.operation };
      return { kind: 'chat', api: op.api, model: decodeURIComponent(dep[1]!), meta };
    }
    // The v1 API (`/openai/v1/…`, api-version optional) and the preview `/openai/responses?api-version=…`.
    const v1 = V1_RE.exec(path);
    if (v1 && method === 'POST' && (v1[1] || (v1[2] === 'responses' && query.get('api-version')))) {
      const op = OPERATIONS[v1[2]!]!;
      return {
        kind: 'chat',
        api: op.api,
        meta: { apiVersion: query.get('api-version') ?? 'v1', operation: op.operation },
      };
    }
    if ((path === '/openai/models' && query.get('api-version')) || path === '/openai/v1/models')
      return method === 'GET' ? { kind: 'models' } : { kind: 'not-found', method, path };
    return { kind: 'not-found', method, path };
  },
  credential: (req) => req.headers['api-key'] ?? (req.headers.authorization?.replace(/^Bearer\s+/i, '') || undefined),
  error: encodeAzureError,
  rateLimitHeaders: (views, ctx) => azureRateLimitHeaders(views, {}, ctx),
  commonHeaders: (ctx) => ({
    'apim-request-id': uuidFrom(ctx.requestId),
    'x-request-id': uuidFrom(ctx.requestId.split('').reverse().join('')),
    'x-ms-region': String(ctx.options.region ?? 'East US'),
  }),
};

function azureExtra(): string {
  return '"prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}],"system_fingerprint":null';
}
