import { anthropicToolOffers, checkAnthropicToolTurns, endsWithToolResult } from './tool-calls.js';
import type { ChatRequest, Completion, ErrorSpec } from './types.js';

// The Messages API's bodies, shared by Anthropic's own API and Bedrock's InvokeModel for Claude.

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function blockText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  let out = '';
  for (const block of content) {
    if (!isObject(block) || typeof block.type !== 'string') return undefined;
    if (block.type === 'text' && typeof block.text === 'string') out += block.text;
  }
  return out;
}

const invalid = (message: string): ErrorSpec => ({ kind: 'invalid_request', message });

/**
 * Validates a Messages API body for `model` as Anthropic does (`max_tokens` is required).
 * @see https://docs.anthropic.com/en/api/messages
 */
export function parseMessagesBody(body: Record<string, unknown>, model: string): ChatRequest | ErrorSpec {
  if (body.max_tokens === undefined) return invalid('max_tokens: Field required');
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1)
    return invalid('max_tokens: Input should be greater than or equal to 1');
  if (!Array.isArray(body.messages)) return invalid('messages: Field required');
  if (body.messages.length === 0) return invalid('messages: at least one message is required');
  let promptText = '';
  if (body.system !== undefined) {
    const sys = blockText(body.system);
    if (sys === undefined) return invalid('system: Input should be a valid string');
    promptText = sys;
  }
  for (let i = 0; i < body.messages.length; i++) {
    const m = body.messages[i];
    if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant'))
      return invalid(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    const text = blockText(m.content);
    if (text === undefined) return invalid(`messages.${i}.content: Input should be a valid list`);
    promptText += (promptText ? '\n' : '') + text;
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean')
    return invalid('stream: Input should be a valid boolean');
  const toolTurns = checkAnthropicToolTurns(body.messages);
  if (toolTurns) return toolTurns;
  return {
    tools: anthropicToolOffers(body),
    afterToolResult: endsWithToolResult('anthropic', body.messages),
    model,
    stream: body.stream === true,
    includeUsage: true,
    maxTokens: body.max_tokens as number,
    promptText,
    messageCount: body.messages.length,
  };
}

/**
 * Input usage split as Anthropic reports it: `input_tokens` are the tokens after the last cache
 * breakpoint; the total input is `input_tokens + cache_creation_input_tokens + cache_read_input_tokens`.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching
 */
function cacheUsage(c: Completion): string {
  const read = c.cacheRead ?? 0;
  const write = c.cacheWrite ?? 0;
  return `"input_tokens":${Math.max(0, c.inputTokens - read - write)},"cache_creation_input_tokens":${write},"cache_read_input_tokens":${read}`;
}

const stopOf = (c: Completion) => (c.toolCall ? 'tool_use' : c.finishReason === 'length' ? 'max_tokens' : 'end_turn');

/** A seeded tool call as a `tool_use` block (`input` overrides the input, for stream starts). */
function toolUse(c: Completion, input?: string): string {
  const t = c.toolCall!;
  return `{"type":"tool_use","id":${JSON.stringify(t.id)},"name":${JSON.stringify(t.name)},"input":${input ?? t.argsJson}}`;
}

/** A whole answer as a Messages API `message` object. */
export function messageJson(c: Completion): string {
  return `{"id":${JSON.stringify(c.id)},"type":"message","role":"assistant","model":${JSON.stringify(c.model)},"content":[{"type":"text","text":${c.textJson}}${c.toolCall ? `,${toolUse(c)}` : ''}],"stop_reason":"${stopOf(c)}","stop_sequence":null,"usage":{${cacheUsage(c)},"output_tokens":${c.tokens.length},"service_tier":"standard"}}`;
}

/** A Messages stream event: its name and its JSON data. */
export type StreamEvent = [name: string, data: string];

/** A streamed answer as Messages stream events, before any transport's framing (SSE, AWS event stream). */
export interface MessageStreamEvents {
  head: StreamEvent[];
  content(from: number, to: number): StreamEvent;
  tail: StreamEvent[];
}

/**
 * The Messages stream events of an answer: `message_start`, a text block (with a `ping` after its
 * start), a tool-use block when the answer calls a tool, `message_delta` and `message_stop`.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
export function messageStreamEvents(c: Completion): MessageStreamEvents {
  return {
    head: [
      [
        'message_start',
        `{"type":"message_start","message":{"id":${JSON.stringify(c.id)},"type":"message","role":"assistant","model":${JSON.stringify(c.model)},"content":[],"stop_reason":null,"stop_sequence":null,"usage":{${cacheUsage(c)},"output_tokens":1,"service_tier":"standard"}}}`,
      ],
      ['content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}'],
      ['ping', '{"type": "ping"}'],
    ],
    content: (from, to) => [
      'content_block_delta',
      `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(c.tokens.slice(from, to).join(''))}}}`,
    ],
    tail: [
      ['content_block_stop', '{"type":"content_block_stop","index":0}'],
      // A tool call is a second block: its start, its input as one input_json_delta, its stop.
      ...(c.toolCall
        ? ([
            ['content_block_start', `{"type":"content_block_start","index":1,"content_block":${toolUse(c, '{}')}}`],
            [
              'content_block_delta',
              `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":${JSON.stringify(c.toolCall.argsJson)}}}`,
            ],
            ['content_block_stop', '{"type":"content_block_stop","index":1}'],
          ] satisfies StreamEvent[])
        : []),
      [
        'message_delta',
        `{"type":"message_delta","delta":{"stop_reason":"${stopOf(c)}","stop_sequence":null},"usage":{"output_tokens":${c.tokens.length}}}`,
      ],
      ['message_stop', '{"type":"message_stop"}'],
    ],
  };
}
