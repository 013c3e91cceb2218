import { openAIStreamError } from './openai-compatible.js';
import type { ApiSurface, ChatRequest, Completion, ErrorSpec, Route, StreamFrames } from './types.js';
import { randomHex } from './wire-format.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// The text of an input item's content: a string, or parts (`input_text`, `output_text`, …).
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  let out = '';
  for (const part of content) {
    if (!isObject(part) || typeof part.type !== 'string') return undefined;
    if (typeof part.text === 'string') out += part.text;
  }
  return out;
}

const invalid = (message: string, param: string): ErrorSpec => ({ kind: 'invalid_request', message, param });

/**
 * Validates a Responses API body: `model`, `input` (a string or a list of items), optional
 * `instructions`, `max_output_tokens` (at least 16, UNCONFIRMED beyond captured error text) and `stream`.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
export function parseResponsesRequest(route: Route & { kind: 'chat' }, body: unknown): ChatRequest | ErrorSpec {
  if (!isObject(body)) return invalid('Invalid type for request body: expected an object.', 'body');
  const model = route.model ?? body.model;
  if (typeof model !== 'string' || model === '') return invalid("Missing required parameter: 'model'.", 'model');
  let promptText = '';
  let messageCount = 0;
  if (body.instructions !== undefined && body.instructions !== null) {
    if (typeof body.instructions !== 'string')
      return invalid("Invalid type for 'instructions': expected a string.", 'instructions');
    promptText = body.instructions;
    messageCount++;
  }
  const input = body.input;
  if (typeof input === 'string') {
    promptText += (promptText ? '\n' : '') + input;
    messageCount++;
  } else if (Array.isArray(input)) {
    if (input.length === 0)
      return invalid("Invalid 'input': empty array. Expected an array with minimum length 1.", 'input');
    for (let i = 0; i < input.length; i++) {
      const item = input[i];
      if (!isObject(item)) return invalid(`Invalid type for 'input[${i}]': expected an object.`, `input[${i}]`);
      // Messages (with or without `type: message`) carry content; other items (tool outputs) an `output`.
      const text =
        item.role !== undefined
          ? contentText(item.content)
          : typeof item.output === 'string'
            ? item.output
            : typeof item.type === 'string'
              ? ''
              : undefined;
      if (text === undefined)
        return invalid(`Invalid value for 'input[${i}]': expected a message or an item with a type.`, `input[${i}]`);
      promptText += (promptText ? '\n' : '') + text;
      messageCount++;
    }
  } else if (input === undefined) {
    return invalid("Missing required parameter: 'input'.", 'input');
  } else {
    return invalid("Invalid type for 'input': expected one of a string or array of input items.", 'input');
  }
  const max = body.max_output_tokens;
  if (max !== undefined && max !== null && (!Number.isInteger(max) || (max as number) < 16)) {
    return invalid(
      `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${JSON.stringify(max)} instead.`,
      'max_output_tokens',
    );
  }
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean')
    return invalid("Invalid type for 'stream': expected a boolean.", 'stream');
  // A function call's output needs the call in the same input (this simulator keeps no stored responses).
  const items = Array.isArray(input) ? input.filter(isObject) : [];
  const calls = new Set(items.filter((i) => i.type === 'function_call').map((i) => i.call_id));
  const orphan = items.find((i) => i.type === 'function_call_output' && !calls.has(i.call_id));
  if (orphan)
    return invalid(`No tool call found for function call output with call_id ${String(orphan.call_id)}.`, 'input');
  const forced = isObject(body.tool_choice) ? body.tool_choice.name : undefined;
  const tools =
    Array.isArray(body.tools) && body.tool_choice !== 'none'
      ? body.tools
          .filter(
            (t): t is Record<string, unknown> => isObject(t) && t.type === 'function' && typeof t.name === 'string',
          )
          .map((t) => ({ name: t.name as string, schema: t.parameters, forced: t.name === forced }))
      : [];
  return {
    tools: tools.length > 0 ? tools : undefined,
    afterToolResult: items.at(-1)?.type === 'function_call_output',
    model,
    stream: body.stream === true,
    includeUsage: true,
    maxTokens: typeof max === 'number' ? max : undefined,
    promptText,
    messageCount,
  };
}

function usage(c: Completion): string {
  const out = c.tokens.length;
  return `{"input_tokens":${c.inputTokens},"input_tokens_details":{"cached_tokens":${c.cacheRead ?? 0}},"output_tokens":${out},"output_tokens_details":{"reasoning_tokens":0},"total_tokens":${c.inputTokens + out}}`;
}

// `msg_` and the response's own id: OpenAI's after its `resp_`, xAI's (a bare UUID) whole.
const messageId = (c: Completion) => `msg_${c.id.startsWith('resp_') ? c.id.slice(5) : c.id}`;
const textPart = (textJson: string) => `{"type":"output_text","annotations":[],"logprobs":[],"text":${textJson}}`;

function messageItem(c: Completion, status: 'in_progress' | 'completed' | 'incomplete', textJson?: string): string {
  const content = textJson === undefined ? '' : textPart(textJson);
  return `{"id":"${messageId(c)}","type":"message","status":"${status}","content":[${content}],"role":"assistant"}`;
}

/** A seeded tool call as a `function_call` item. */
function callItem(c: Completion, status: 'in_progress' | 'completed'): string {
  const t = c.toolCall!;
  const args = status === 'completed' ? t.argsJson : '';
  return `{"id":"fc_${t.id.slice(5)}","type":"function_call","status":"${status}","arguments":${JSON.stringify(args)},"call_id":${JSON.stringify(t.id)},"name":${JSON.stringify(t.name)}}`;
}

/** The `response` object, in progress (no output yet) or finished. */
function responseObject(c: Completion, finished: boolean): string {
  const incomplete = finished && c.finishReason === 'length';
  const status = !finished ? 'in_progress' : incomplete ? 'incomplete' : 'completed';
  const call = finished && c.toolCall ? `,${callItem(c, 'completed')}` : '';
  const output = finished ? messageItem(c, incomplete ? 'incomplete' : 'completed', c.textJson) + call : '';
  return (
    `{"id":${JSON.stringify(c.id)},"object":"response","created_at":${Math.floor(c.createdAt / 1000)},"status":"${status}","background":false,"error":null,` +
    `"incomplete_details":${incomplete ? '{"reason":"max_output_tokens"}' : 'null'},"instructions":null,"max_output_tokens":${c.maxTokens ?? 'null'},` +
    `"model":${JSON.stringify(c.model)},"output":[${output}],"parallel_tool_calls":true,"previous_response_id":null,` +
    `"reasoning":{"effort":null,"summary":null},"service_tier":"default","store":true,"temperature":1.0,` +
    `"text":{"format":{"type":"text"},"verbosity":"medium"},"tool_choice":"auto","tools":[],"top_p":1.0,"truncation":"disabled",` +
    `"usage":${finished ? usage(c) : 'null'},"user":null,"metadata":{}}`
  );
}

/**
 * The Responses API stream: typed events, each `event: <type>` with a `sequence_number`, from
 * `response.created` through `response.output_text.delta` to `response.completed` (or
 * `response.incomplete`) with usage; no `[DONE]`.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
export function responsesStreamFrames(c: Completion): StreamFrames {
  let seq = 0;
  const ev = (type: string, fields: string) =>
    `event: ${type}\ndata: {"type":"${type}",${fields},"sequence_number":${seq++}}\n\n`;
  const item = `"item_id":"${messageId(c)}","output_index":0,"content_index":0`;
  const head = [
    ev('response.created', `"response":${responseObject(c, false)}`),
    ev('response.in_progress', `"response":${responseObject(c, false)}`),
    ev('response.output_item.added', `"output_index":0,"item":${messageItem(c, 'in_progress')}`),
    ev('response.content_part.added', `${item},"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}`),
  ];
  const incomplete = c.finishReason === 'length';
  return {
    head,
    content: (from, to) =>
      ev(
        'response.output_text.delta',
        `${item},"delta":${JSON.stringify(c.tokens.slice(from, to).join(''))},"logprobs":[]`,
      ),
    // A getter: the sequence numbers of the closing events follow the last delta written.
    get tail() {
      return [
        ev('response.output_text.done', `${item},"text":${c.textJson},"logprobs":[]`),
        ev('response.content_part.done', `${item},"part":${textPart(c.textJson)}`),
        ev(
          'response.output_item.done',
          `"output_index":0,"item":${messageItem(c, incomplete ? 'incomplete' : 'completed', c.textJson)}`,
        ),
        ...(c.toolCall
          ? [
              ev('response.output_item.added', `"output_index":1,"item":${callItem(c, 'in_progress')}`),
              ev(
                'response.function_call_arguments.delta',
                `"item_id":"fc_${c.toolCall.id.slice(5)}","output_index":1,"delta":${JSON.stringify(c.toolCall.argsJson)}`,
              ),
              ev(
                'response.function_call_arguments.done',
                `"item_id":"fc_${c.toolCall.id.slice(5)}","output_index":1,"arguments":${JSON.stringify(c.toolCall.argsJson)}`,
              ),
              ev('response.output_item.done', `"output_index":1,"item":${callItem(c, 'completed')}`),
            ]
          : []),
        ev(incomplete ? 'response.incomplete' : 'response.completed', `"response":${responseObject(c, true)}`),
      ];
    },
    error(e: ErrorSpec) {
      const flat = JSON.parse(openAIStreamError(e).slice(6)) as { error: { message: string; code: string | null } };
      return ev(
        'error',
        `"code":${JSON.stringify(flat.error.code ?? 'server_error')},"message":${JSON.stringify(flat.error.message)},"param":null`,
      );
    },
  };
}

/** The Responses API on an OpenAI-shaped vendor (OpenAI, Azure OpenAI). */
export const responsesApi: ApiSurface = {
  completionId: (ctx) => `resp_${randomHex(ctx.rng, 48)}`,
  parse: parseResponsesRequest,
  completion: (c) => responseObject(c, true),
  stream: (c) => responsesStreamFrames(c),
  streamError: (e) => openAIStreamError(e),
};
