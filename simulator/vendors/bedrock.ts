// Over 300 lines on purpose: a vendor profile keeps every shape of one vendor (routes, auth,
// bodies, the binary event stream, errors) in one file, the only place its wire format lives.
import type { LimitView } from '../quota/quota-set.js';
import { writeRetryHeaders, type HintSent } from './hint.js';
import { bearerToken } from './openai-compatible.js';
import type {
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
import { randomHex, uuidFrom } from './wire-format.js';
import { bedrockInvokeApi } from './bedrock-invoke.js';
import { awsEvent as event, awsStreamException, pad } from './aws-event-frame.js';
import { checkConverseToolTurns, converseToolOffers, endsWithToolResult } from './tool-calls.js';

const MODEL_PATH_RE = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/;
// `AWS4-HMAC-SHA256 Credential=AKID/20261130/us-east-1/bedrock/aws4_request, SignedHeaders=…, Signature=…`
const SIGV4_RE = /^AWS4-HMAC-SHA256\s+Credential=([^/,\s]+)\//;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function blocksText(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  let out = '';
  for (const block of content) {
    if (!isObject(block)) return undefined;
    if (typeof block.text === 'string') out += block.text;
  }
  return out;
}

const validation = (message: string): ErrorSpec => ({ kind: 'invalid_request', message });

/**
 * Validates a Converse body: `messages` of `{role, content: [{text}]}`, optional `system` blocks
 * and `inferenceConfig.maxTokens`.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */
function parseConverse(route: Route & { kind: 'chat' }, body: unknown): ChatRequest | ErrorSpec {
  if (!isObject(body)) return validation('Malformed input request, please reformat your input and try again.');
  const messages = body.messages;
  if (!Array.isArray(messages))
    return validation(
      "1 validation error detected: Value null at 'messages' failed to satisfy constraint: Member must not be null",
    );
  if (messages.length === 0)
    return validation(
      'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
    );
  let promptText = '';
  if (body.system !== undefined) {
    const sys = blocksText(body.system);
    if (sys === undefined) return validation('The system field must be a list of content blocks.');
    promptText = sys;
  }
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant'))
      return validation(
        `1 validation error detected: Value at 'messages.${i + 1}.member.role' failed to satisfy constraint: Member must satisfy enum value set: [user, assistant]`,
      );
    const text = blocksText(m.content);
    if (text === undefined)
      return validation(
        `1 validation error detected: Value null at 'messages.${i + 1}.member.content' failed to satisfy constraint: Member must not be null`,
      );
    promptText += (promptText ? '\n' : '') + text;
  }
  const config = isObject(body.inferenceConfig) ? body.inferenceConfig : {};
  const max = config.maxTokens;
  if (max !== undefined && (!Number.isInteger(max) || (max as number) < 1))
    return validation(
      "1 validation error detected: Value at 'inferenceConfig.maxTokens' failed to satisfy constraint: Member must have value greater than or equal to 1",
    );
  const toolTurns = checkConverseToolTurns(messages);
  if (toolTurns) return toolTurns;
  return {
    tools: converseToolOffers(body),
    afterToolResult: endsWithToolResult('bedrock', messages),
    model: route.model!,
    stream: route.stream === true,
    includeUsage: true,
    maxTokens: max as number | undefined,
    promptText,
    messageCount: messages.length,
  };
}

const stopReason = (c: Completion) =>
  c.toolCall ? 'tool_use' : c.finishReason === 'length' ? 'max_tokens' : 'end_turn';

/** A seeded tool call as a `toolUse` content block. */
const toolUse = (c: Completion) =>
  `{"toolUse":{"toolUseId":${JSON.stringify(c.toolCall!.id)},"name":${JSON.stringify(c.toolCall!.name)},"input":${c.toolCall!.argsJson}}}`;
/**
 * Converse usage: with a cache hit or write, `inputTokens` are those after the last cache point and
 * `cacheReadInputTokens`/`cacheWriteInputTokens` the rest; `totalTokens` counts them all.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html
 */
function usage(c: Completion): string {
  const read = c.cacheRead ?? 0;
  const write = c.cacheWrite ?? 0;
  const cache = read + write > 0 ? `,"cacheReadInputTokens":${read},"cacheWriteInputTokens":${write}` : '';
  return `{"inputTokens":${Math.max(0, c.inputTokens - read - write)},"outputTokens":${c.tokens.length},"totalTokens":${c.inputTokens + c.tokens.length}${cache}}`;
}

const ERROR_TYPE_SUFFIX = ':http://internal.amazon.com/coral/com.amazon.bedrock/';

/** The exception each error kind is raised as: HTTP status, `x-amzn-ErrorType` and message. */
function exceptionFor(e: ErrorSpec, ctx: EncodeContext): [number, string, string] {
  const tokens = e.violation !== undefined && e.violation.metric !== 'requests';
  switch (e.kind) {
    case 'invalid_api_key':
      return [403, 'UnrecognizedClientException', 'The security token included in the request is invalid.'];
    case 'missing_api_key':
      return [403, 'MissingAuthenticationTokenException', 'Missing Authentication Token'];
    case 'bad_json':
      return [400, 'SerializationException', 'Malformed input request, please reformat your input and try again.'];
    case 'invalid_request':
    case 'payload_too_large':
      return [
        400,
        'ValidationException',
        e.message ?? 'Malformed input request, please reformat your input and try again.',
      ];
    case 'model_not_found':
    case 'wrong_model_kind': // not refused by this vendor's profile (no source); an unknown model's answer
      return [400, 'ValidationException', 'The provided model identifier is invalid.'];
    case 'not_found':
      return [404, 'UnknownOperationException', 'Unknown operation.'];
    case 'rate_limited':
    case 'request_too_large':
    case 'slow_down':
      return [
        429,
        'ThrottlingException',
        e.message ?? `Too many ${tokens ? 'tokens' : 'requests'}, please wait before trying again.`,
      ];
    case 'capacity':
      return [
        429,
        'ThrottlingException',
        e.message ??
          'Your request was throttled because of service-wide limitations. Resubmit your request later or in a different region. You can also use Cross-Region Inference to help mitigate this issue.',
      ];
    case 'quota_exhausted':
      return [
        400,
        'ServiceQuotaExceededException',
        e.message ??
          `Your request exceeds the service quota for your account. You can view your quotas at https://docs.aws.amazon.com/bedrock/latest/userguide/quotas.html. Resubmit your request later.`,
      ];
    case 'unavailable':
      // A forced 429 with `error: unavailable` is the model still loading (retried five times by the AWS SDKs).
      if (e.status === 429)
        return [
          429,
          'ModelNotReadyException',
          `Model ${ctx.model} is not ready for inference. Wait and try your request again.`,
        ];
      return [503, 'ServiceUnavailableException', e.message ?? 'Service Unavailable. Please try your request again.'];
    case 'overloaded':
      return [503, 'ServiceUnavailableException', e.message ?? 'Service Unavailable. Please try your request again.'];
    case 'server_error':
      return [
        500,
        'InternalServerException',
        e.message ?? 'The server encountered an internal error while processing the request.',
      ];
    case 'bad_gateway':
      return [424, 'ModelErrorException', e.message ?? 'The model returned an error. Try your request again.'];
    case 'timeout':
      return [
        408,
        'ModelTimeoutException',
        e.message ?? 'Model has timed out in processing the request. Try your request again.',
      ];
  }
}

/**
 * Bedrock's errors: a `{"message"}` body, the exception named in `x-amzn-ErrorType`; no rate-limit
 * headers and no Retry-After (the explicit hint forms add them for tests).
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/troubleshooting-api-error-codes.html
 */
function encodeBedrockError(e: ErrorSpec, _views: LimitView[], ctx: EncodeContext): EncodedError {
  const [status, type, message] = exceptionFor(e, ctx);
  const headers: HeaderMap = { 'content-type': 'application/json', 'x-amzn-errortype': `${type}${ERROR_TYPE_SUFFIX}` };
  let sent: HintSent | undefined;
  if (e.hint && (e.hint.form === 'seconds' || e.hint.form === 'ms' || e.hint.form === 'http-date'))
    sent = writeRetryHeaders(e.hint, ctx, headers);
  if (e.shouldRetry !== undefined) headers['x-should-retry'] = String(e.shouldRetry);
  return { status: e.status ?? status, headers, body: JSON.stringify({ message }), hintSent: sent, errorType: type };
}

/**
 * Amazon Bedrock runtime, Converse and ConverseStream: `/model/{modelId}/converse(-stream)`, SigV4
 * `Authorization` (the access key id is the key matched and recorded; the signature is not
 * checked) or a Bedrock API key as Bearer, AWS event-stream framing through Smithy's codec,
 * `ThrottlingException`, `ModelNotReadyException`, `ServiceUnavailableException`; no rate-limit
 * headers; per-model tokens per minute (input and output) and requests per minute.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/quotas-runtime.html
 */
export const bedrockProfile: VendorProfile = {
  id: 'bedrock',
  title: 'Amazon Bedrock',
  defaults: {
    algorithm: { requests: 'token-bucket', tokens: 'token-bucket' },
    // max_tokens is reserved up front (UNCONFIRMED beyond AWS's own guidance); output is not refunded here.
    tokenAdmission: 'input+max_tokens',
    chargeOutputToTokens: false,
    countRejected: false,
    tokensPerFrame: 4,
  },
  resetHeaders: false,
  bodyHints: false,
  binaryStreams: true,
  keyIdentity: (value) => (value.includes(':') ? value.slice(0, value.indexOf(':')) : value),
  completionId: (ctx) => uuidFrom(randomHex(ctx.rng, 32)),
  baseUrl: (root) => root,
  envLines: (baseUrl, key) => {
    const colon = key.indexOf(':');
    const auth: Array<[string, string]> =
      colon < 0
        ? [['AWS_BEARER_TOKEN_BEDROCK', key]]
        : [
            ['AWS_ACCESS_KEY_ID', key.slice(0, colon)],
            ['AWS_SECRET_ACCESS_KEY', key.slice(colon + 1)],
          ];
    return [['AWS_ENDPOINT_URL_BEDROCK_RUNTIME', baseUrl], ['AWS_REGION', 'us-east-1'], ...auth];
  },
  route(method, path): Route {
    const m = MODEL_PATH_RE.exec(path);
    if (!m || method !== 'POST') return { kind: 'not-found', method, path };
    const op = m[2]!;
    const invoke = op.startsWith('invoke');
    return {
      kind: 'chat',
      ...(invoke ? { api: 'invoke' as const } : {}),
      model: decodeURIComponent(m[1]!),
      stream: op === 'converse-stream' || op === 'invoke-with-response-stream',
    };
  },
  credential(req) {
    const auth = req.headers.authorization;
    if (!auth) return undefined;
    return SIGV4_RE.exec(auth)?.[1] ?? bearerToken(auth);
  },
  parse: parseConverse,
  apis: { invoke: bedrockInvokeApi },
  completion: (c) =>
    `{"output":{"message":{"role":"assistant","content":[{"text":${c.textJson}}${c.toolCall ? `,${toolUse(c)}` : ''}]}},"stopReason":"${stopReason(c)}","usage":${usage(c)},"metrics":{"latencyMs":${Math.max(1, Math.round((c.tokens.length + 1) * 10))}}}`,
  stream(c): StreamFrames {
    return {
      head: [event('messageStart', `{"p":"${pad(0)}","role":"assistant"}`)],
      content: (from, to) =>
        event(
          'contentBlockDelta',
          `{"contentBlockIndex":0,"delta":{"text":${JSON.stringify(c.tokens.slice(from, to).join(''))}},"p":"${pad(to)}"}`,
        ),
      tail: [
        event('contentBlockStop', `{"contentBlockIndex":0,"p":"${pad(1)}"}`),
        // A tool call is block 1: its start (id and name), its input as one JSON text, its stop.
        ...(c.toolCall
          ? [
              event(
                'contentBlockStart',
                `{"contentBlockIndex":1,"p":"${pad(1)}","start":{"toolUse":{"toolUseId":${JSON.stringify(c.toolCall.id)},"name":${JSON.stringify(c.toolCall.name)}}}}`,
              ),
              event(
                'contentBlockDelta',
                `{"contentBlockIndex":1,"delta":{"toolUse":{"input":${JSON.stringify(c.toolCall.argsJson)}}},"p":"${pad(1)}"}`,
              ),
              event('contentBlockStop', `{"contentBlockIndex":1,"p":"${pad(1)}"}`),
            ]
          : []),
        event('messageStop', `{"p":"${pad(2)}","stopReason":"${stopReason(c)}"}`),
        event(
          'metadata',
          `{"metrics":{"latencyMs":${Math.max(1, c.tokens.length * 10)}},"p":"${pad(3)}","usage":${usage(c)}}`,
        ),
      ],
    };
  },
  streamError: (e) => awsStreamException(e),
  error: encodeBedrockError,
  models: (names) =>
    JSON.stringify({
      modelSummaries: names.map((modelId) => ({
        modelId,
        modelArn: `arn:aws:bedrock:us-east-1::foundation-model/${modelId}`,
      })),
    }),
  rateLimitHeaders: () => ({}),
  contentType: (stream) => (stream ? 'application/vnd.amazon.eventstream' : 'application/json'),
  commonHeaders: (ctx) => ({ 'x-amzn-requestid': uuidFrom(ctx.requestId) }),
  // A held stream sends nothing: no filler fits inside the binary framing.
  keepAlive: (stream) => (stream ? '' : '\n'),
};
