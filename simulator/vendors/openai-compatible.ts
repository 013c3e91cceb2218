import type { ChatRequest, Completion, EncodeContext, ErrorSpec, Route, StreamFrames } from './types.js';
import { checkOpenAIToolTurns, endsWithToolResult, openAIToolOffers } from './tool-calls.js';

/** The OpenAI error envelope. */
export function openAIErrorBody(
  message: string,
  type: string | null,
  param: string | null,
  code: string | null,
): string {
  return JSON.stringify({ error: { message, type, param, code } });
}

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    let out = '';
    for (const part of content) {
      // Every part needs a type; text parts need their text.
      if (!part || typeof part !== 'object' || typeof (part as { type?: unknown }).type !== 'string') return undefined;
      const { type, text } = part as { type: string; text?: unknown };
      if (type === 'text') {
        if (typeof text !== 'string') return undefined;
        out += text;
      }
    }
    return out;
  }
  if (content === null || content === undefined) return '';
  return undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Validates an OpenAI chat-completions body the way the API does, returning the first problem as
 * an `invalid_request` error.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
export function parseOpenAIChat(route: Route & { kind: 'chat' }, body: unknown): ChatRequest | ErrorSpec {
  if (!isObject(body))
    return { kind: 'invalid_request', message: 'Invalid type for request body: expected an object.' };
  const model = route.model ?? body.model;
  if (typeof model !== 'string' || model === '') {
    return { kind: 'invalid_request', message: 'you must provide a model parameter', param: 'model' };
  }
  const messages = body.messages;
  if (messages === undefined)
    return { kind: 'invalid_request', message: "Missing required parameter: 'messages'.", param: 'messages' };
  if (!Array.isArray(messages) || messages.length === 0) {
    return {
      kind: 'invalid_request',
      message:
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      param: 'messages',
    };
  }
  let promptText = '';
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isObject(m) || typeof m.role !== 'string') {
      return {
        kind: 'invalid_request',
        message: `Missing required parameter: 'messages[${i}].role'.`,
        param: `messages[${i}].role`,
      };
    }
    // An assistant turn that only calls tools has null content.
    const text = m.content === null && m.role === 'assistant' ? '' : textOf(m.content);
    if (text === undefined) {
      return {
        kind: 'invalid_request',
        message: `Invalid type for 'messages[${i}].content': expected one of a string or array of objects.`,
        param: `messages[${i}].content`,
      };
    }
    promptText += (i ? '\n' : '') + text;
  }
  const rawMax = body.max_completion_tokens ?? body.max_tokens;
  if (rawMax !== undefined && rawMax !== null && (!Number.isInteger(rawMax) || (rawMax as number) < 1)) {
    const param = body.max_completion_tokens !== undefined ? 'max_completion_tokens' : 'max_tokens';
    return {
      kind: 'invalid_request',
      message: `Invalid '${param}': integer below minimum value. Expected a value >= 1, but got ${JSON.stringify(rawMax)} instead.`,
      param,
    };
  }
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') {
    return { kind: 'invalid_request', message: "Invalid type for 'stream': expected a boolean.", param: 'stream' };
  }
  const toolTurns = checkOpenAIToolTurns(messages);
  if (toolTurns) return toolTurns;
  const streamOptions = body.stream_options;
  return {
    tools: openAIToolOffers(body),
    afterToolResult: endsWithToolResult('openai', messages),
    model,
    stream: body.stream === true,
    includeUsage: isObject(streamOptions) && streamOptions.include_usage === true,
    maxTokens: typeof rawMax === 'number' ? rawMax : undefined,
    promptText,
    messageCount: messages.length,
  };
}

/** Extra top-level fields a vendor adds to chat objects. */
export interface OpenAIFlavor {
  /** Fields appended to completion and chunk objects (after `choices`), pre-serialised without braces. */
  extraFields?: (ctx: EncodeContext) => string;
  /** Extra `usage` fields, pre-serialised, appended inside the usage object. */
  usageDetails?: string;
  /** Adds `x_groq: {id, usage}` to the final chunk. */
  xGroqUsage?: boolean;
  /** Writes the `include_usage` chunk when asked. */
  usageChunk?: boolean;
  /** Puts `usage` on the finish chunk, asked or not (Mistral, Cerebras). */
  usageOnFinish?: boolean;
  /** Cerebras `time_info` after `usage` on the completion and the finish chunk. */
  timeInfo?: boolean;
}

/**
 * Cerebras' server timings in seconds: the field names are observed, the values are the
 * simulator's (all processing counted as completion time, no queueing).
 */
function timeInfoJson(c: Completion, ctx: EncodeContext): string {
  const total = (ctx.processingMs ?? 0) / 1000;
  return `,"time_info":{"queue_time":0,"prompt_time":0,"completion_time":${total},"total_time":${total},"created":${c.createdAt / 1000}}`;
}

/** Usage details with the prompt-cache hits in `prompt_tokens_details.cached_tokens`. */
function details(c: Completion, flavor: OpenAIFlavor): string {
  const d = flavor.usageDetails ?? '';
  if (!c.cacheRead) return d;
  const cached = `"cached_tokens":${c.cacheRead}`;
  return d.includes('"cached_tokens":0')
    ? d.replace('"cached_tokens":0', cached)
    : `${d},"prompt_tokens_details":{${cached}}`;
}

function usageJson(c: Completion, flavor: OpenAIFlavor): string {
  const out = c.tokens.length;
  return `{"prompt_tokens":${c.inputTokens},"completion_tokens":${out},"total_tokens":${c.inputTokens + out}${details(c, flavor)}}`;
}

const finishOf = (c: Completion) => (c.toolCall ? 'tool_calls' : c.finishReason);

/** A seeded tool call as a chat `tool_calls` entry (`args` overrides the arguments, for stream starts). */
function toolCallJson(c: Completion, args?: string): string {
  const t = c.toolCall!;
  return `{"index":0,"id":${JSON.stringify(t.id)},"type":"function","function":{"name":${JSON.stringify(t.name)},"arguments":${JSON.stringify(args ?? t.argsJson)}}}`;
}

/** A non-streaming chat.completion object. */
export function encodeOpenAICompletion(c: Completion, ctx: EncodeContext, flavor: OpenAIFlavor): string {
  const extra = flavor.extraFields ? `,${flavor.extraFields(ctx)}` : '';
  return (
    `{"id":${JSON.stringify(c.id)},"object":"chat.completion","created":${Math.floor(c.createdAt / 1000)},"model":${JSON.stringify(c.model)},` +
    `"choices":[{"index":0,"message":{"role":"assistant","content":${c.textJson},"refusal":null,"annotations":[]${c.toolCall ? `,"tool_calls":[${toolCallJson(c).replace('{"index":0,', '{')}]` : ''}},"logprobs":null,"finish_reason":"${finishOf(c)}"}],` +
    `"usage":${usageJson(c, flavor)}${flavor.timeInfo ? timeInfoJson(c, ctx) : ''}${extra}}`
  );
}

/**
 * Chat-completion chunks: a role chunk, content chunks, a finish chunk, the `include_usage` chunk
 * (empty `choices`) when asked, then `data: [DONE]`.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming
 */
export function openAIStreamFrames(
  c: Completion,
  ctx: EncodeContext,
  includeUsage: boolean,
  flavor: OpenAIFlavor,
): StreamFrames {
  const extra = flavor.extraFields ? `,${flavor.extraFields(ctx)}` : '';
  const withUsage = includeUsage && flavor.usageChunk !== false;
  const usageNull = withUsage ? ',"usage":null' : '';
  const prefix = `data: {"id":${JSON.stringify(c.id)},"object":"chat.completion.chunk","created":${Math.floor(c.createdAt / 1000)},"model":${JSON.stringify(c.model)}${extra},"choices":[{"index":0,"delta":`;
  const suffix = `,"logprobs":null,"finish_reason":null}]${usageNull}}\n\n`;
  const tail: string[] = [];
  const xGroq = flavor.xGroqUsage
    ? `,"x_groq":{"id":${JSON.stringify(ctx.requestId)},"usage":${usageJson(c, flavor)}}`
    : '';
  const finishUsage = flavor.usageOnFinish
    ? `,"usage":${usageJson(c, flavor)}${flavor.timeInfo ? timeInfoJson(c, ctx) : ''}`
    : usageNull;
  // A tool call streams as its start (id, name, empty arguments), then its arguments.
  if (c.toolCall) {
    tail.push(`${prefix}{"tool_calls":[${toolCallJson(c, '')}]}${suffix}`);
    tail.push(
      `${prefix}{"tool_calls":[{"index":0,"function":{"arguments":${JSON.stringify(c.toolCall.argsJson)}}}]}${suffix}`,
    );
  }
  tail.push(`${prefix}{},"logprobs":null,"finish_reason":"${finishOf(c)}"}]${finishUsage}${xGroq}}\n\n`);
  if (withUsage) {
    tail.push(
      `data: {"id":${JSON.stringify(c.id)},"object":"chat.completion.chunk","created":${Math.floor(c.createdAt / 1000)},"model":${JSON.stringify(c.model)}${extra},"choices":[],"usage":${usageJson(c, flavor)}}\n\n`,
    );
  }
  tail.push('data: [DONE]\n\n');
  return {
    head: [`${prefix}{"role":"assistant","content":"","refusal":null}${suffix}`],
    content: (from, to) => `${prefix}{"content":${JSON.stringify(c.tokens.slice(from, to).join(''))}}${suffix}`,
    tail,
  };
}

/**
 * An error inside a 200 stream: a `data:` line whose JSON has an `error` key, which the OpenAI
 * SDKs raise as `APIError` during iteration.
 */
export function openAIStreamErrorFrame(message: string, type: string, code: string | null): string {
  return `data: ${JSON.stringify({ error: { message, type, param: null, code } })}\n\n`;
}

/** An error inside a 200 stream, phrased as OpenAI's SSE `error` payload. */
export function openAIStreamError(e: ErrorSpec): string {
  if (e.kind === 'overloaded' || e.kind === 'unavailable' || e.kind === 'capacity') {
    return openAIStreamErrorFrame(
      e.message ?? 'The server is overloaded or not ready yet.',
      'service_unavailable_error',
      'server_is_overloaded',
    );
  }
  if (e.kind === 'rate_limited')
    return openAIStreamErrorFrame(e.message ?? 'Rate limit reached.', 'requests', 'rate_limit_exceeded');
  return openAIStreamErrorFrame(
    e.message ?? 'The server had an error while processing your request. Sorry about that!',
    'server_error',
    null,
  );
}

/** `GET /models`, OpenAI's list shape. */
export function encodeOpenAIModels(names: readonly string[], ownedBy: string, createdAt: number): string {
  return JSON.stringify({
    object: 'list',
    data: names.map((id) => ({ id, object: 'model', created: Math.floor(createdAt / 1000), owned_by: ownedBy })),
  });
}

/** Extracts `Authorization: Bearer <key>` (scheme case-insensitive). */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header || header.length < 8) return undefined;
  const scheme =
    header.charCodeAt(0) === 66 && header.startsWith('Bearer ') ? 7 : /^\s*bearer\s+/i.exec(header)?.[0].length;
  if (scheme === undefined) return undefined;
  const token = header.slice(scheme).trim();
  return token === '' ? undefined : token;
}

/** Masks a credential as vendors echo it (`****WXYZ`): never more than its last four characters. */
export function maskKey(key: string): string {
  return key.length <= 8 ? '****' : `****${key.slice(-4)}`;
}
