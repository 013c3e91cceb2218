import { messageJson, messageStreamEvents, parseMessagesBody, type StreamEvent } from './anthropic-messages.js';
import { awsEvent, awsStreamException, pad } from './aws-event-frame.js';
import { randomAlnum } from './wire-format.js';
import type { ApiSurface, ChatRequest, Completion, ErrorSpec, Route } from './types.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The `anthropic_version` values taken: Bedrock's documented `bedrock-2023-05-31`, and the dated
 * Messages API versions the Anthropic Bedrock SDK 1.x copies from its `anthropic-version` header
 * (`2026-10-21`); which others Bedrock refuses is UNCONFIRMED.
 */
const ANTHROPIC_VERSION_RE = /^(bedrock-2023-05-31|\d{4}-\d{2}-\d{2})$/;

// Bedrock validates a model's body against its JSON schema first and names the key it missed.
const malformed = (detail: string): ErrorSpec => ({
  kind: 'invalid_request',
  message: `Malformed input request: ${detail}, please reformat your input and try again.`,
});

/** Claude models by base id, cross-Region inference profile (`us.anthropic.…`) or ARN. */
const isClaude = (model: string) => /(^|[.:/])anthropic\.claude/.test(model);

/**
 * Validates an InvokeModel body for a Claude model: the Messages body without `model` or `stream`
 * (the path names both), with an `anthropic_version`. Other model families'
 * native bodies are not simulated: their invocations are refused as a ValidationException.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html
 */
function parseInvoke(route: Route & { kind: 'chat' }, body: unknown): ChatRequest | ErrorSpec {
  const model = route.model!;
  if (!isClaude(model))
    return {
      kind: 'invalid_request',
      message: `The simulator serves InvokeModel only for Claude models, not ${model}.`,
    };
  if (!isObject(body)) return malformed('#: expected type: JSONObject');
  for (const key of ['anthropic_version', 'max_tokens', 'messages'])
    if (body[key] === undefined) return malformed(`#: required key [${key}] not found`);
  if (typeof body.anthropic_version !== 'string' || !ANTHROPIC_VERSION_RE.test(body.anthropic_version))
    return malformed(`#/anthropic_version: ${JSON.stringify(body.anthropic_version)} is not a valid enum value`);
  for (const key of ['model', 'stream'])
    if (body[key] !== undefined) return malformed(`#: extraneous key [${key}] is not permitted`);
  const chat = parseMessagesBody(body, model);
  if ('kind' in chat) return chat;
  return { ...chat, stream: route.stream === true };
}

/** What the last chunk adds: the invocation's token counts and latencies in milliseconds. */
function invocationMetrics(c: Completion): string {
  const latencyMs = Math.max(1, (c.tokens.length + 1) * 10);
  return `"amazon-bedrock-invocationMetrics":{"inputTokenCount":${c.inputTokens},"outputTokenCount":${c.tokens.length},"invocationLatency":${latencyMs},"firstByteLatency":${Math.min(latencyMs, 10)}}`;
}

/** One `chunk` event: the Messages stream event's JSON, base64 in `bytes`, padded as Bedrock pads. */
function chunk([, data]: StreamEvent, n: number): string {
  return awsEvent('chunk', `{"bytes":"${Buffer.from(data, 'utf8').toString('base64')}","p":"${pad(n)}"}`);
}

/**
 * Bedrock's InvokeModel and InvokeModelWithResponseStream for Claude: the Messages API's answer as
 * the response body, or its stream events (no `ping`) as `chunk` events of an AWS event stream,
 * the last (`message_stop`) carrying `amazon-bedrock-invocationMetrics`. Errors, auth and quotas
 * are the Converse API's.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html
 */
export const bedrockInvokeApi: ApiSurface = {
  completionId: (ctx) => `msg_bdrk_01${randomAlnum(ctx.rng, 22)}`,
  parse: parseInvoke,
  completion: (c) => messageJson(c),
  stream(c) {
    const events = messageStreamEvents(c);
    const tail = events.tail.map((ev, i): StreamEvent => {
      if (i < events.tail.length - 1) return ev;
      return [ev[0], `${ev[1].slice(0, -1)},${invocationMetrics(c)}}`];
    });
    return {
      head: events.head.filter(([name]) => name !== 'ping').map((ev, i) => chunk(ev, i)),
      content: (from, to) => chunk(events.content(from, to), to),
      tail: tail.map((ev, i) => chunk(ev, i + 2)),
    };
  },
  streamError: (e) => awsStreamException(e),
};
