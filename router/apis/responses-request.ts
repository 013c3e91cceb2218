import type { ChatMessage, ChatRequest } from '../core/types.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A problem with a Responses body, with the parameter it concerns (404 for an item the router does not have). */
export class ResponsesInvalid extends Error {
  constructor(
    message: string,
    readonly param: string | null,
    readonly status: 400 | 404 = 400,
  ) {
    super(message);
  }
}

/** Looks up an item the router returned earlier, for `item_reference` input items. */
export type RecallItem = (id: string) => Record<string, unknown> | undefined;
const fail = (message: string, param: string | null): never => {
  throw new ResponsesInvalid(message, param);
};

/** Input content parts as chat parts: `input_text`/`output_text` as text, `input_image` as `image_url`. */
function parts(content: unknown, at: string): string | Obj[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return fail(`Invalid type for '${at}.content': expected a string or an array.`, at);
  return content.map((p, i) => {
    const where = `${at}.content[${i}]`;
    if (!isObj(p)) return fail(`Invalid type for '${where}': expected an object.`, where);
    const extra = p.cache_control !== undefined ? { cache_control: p.cache_control } : {};
    if ((p.type === 'input_text' || p.type === 'output_text') && typeof p.text === 'string')
      return { type: 'text', text: p.text, ...extra };
    if (p.type === 'input_image' && typeof p.image_url === 'string')
      return {
        type: 'image_url',
        image_url: { url: p.image_url, ...(p.detail ? { detail: p.detail } : {}) },
        ...extra,
      };
    return fail(`Invalid value for '${where}.type': the router does not translate '${String(p.type)}' parts.`, where);
  });
}

function textOf(p: string | Obj[]): string {
  return typeof p === 'string' ? p : p.map((x) => (typeof x.text === 'string' ? x.text : '')).join('');
}

/**
 * An `item_reference` as the item it names, if the router returned it earlier to this caller.
 * Real OpenAI answers an unknown id with 404 "Item with id '…' not found." (docs/vendor-facts.md).
 */
function referenced(item: Obj, at: string, recall: RecallItem | undefined): Obj {
  if (typeof item.id !== 'string') return fail(`Missing required parameter: '${at}.id'.`, at);
  const found = recall?.(item.id);
  if (found === undefined || found.type === 'item_reference')
    throw new ResponsesInvalid(
      `Item with id '${item.id}' not found. The router resolves references only to items it returned to this caller recently (with \`store\` not false); send the item itself instead.`,
      'input',
      404,
    );
  return found;
}

function inputItems(input: unknown[], out: ChatMessage[], recall?: RecallItem): void {
  input.forEach((given, i) => {
    const at = `input[${i}]`;
    if (!isObj(given)) return fail(`Invalid type for '${at}': expected an object.`, at);
    const item = given.type === 'item_reference' ? referenced(given, at, recall) : given;
    const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
    if (type === 'message') {
      const role = item.role === 'developer' || item.role === 'system' ? 'system' : item.role;
      if (role !== 'user' && role !== 'assistant' && role !== 'system')
        return fail(`Invalid value for '${at}.role': expected 'user', 'assistant', 'system' or 'developer'.`, at);
      const content = parts(item.content, at);
      return out.push({ role, content: role === 'assistant' ? textOf(content) : (content as ChatMessage['content']) });
    }
    if (type === 'function_call') {
      if (typeof item.call_id !== 'string' || typeof item.name !== 'string')
        return fail(`Missing required parameter: '${at}.call_id'.`, at);
      const call = {
        id: item.call_id,
        type: 'function',
        function: { name: item.name, arguments: typeof item.arguments === 'string' ? item.arguments : '{}' },
      };
      const last = out.at(-1);
      if (last?.role === 'assistant' && Array.isArray(last.tool_calls)) (last.tool_calls as unknown[]).push(call);
      else if (last?.role === 'assistant' && !last.tool_calls) last.tool_calls = [call];
      else out.push({ role: 'assistant', content: null, tool_calls: [call] });
      return;
    }
    if (type === 'function_call_output') {
      if (typeof item.call_id !== 'string') return fail(`Missing required parameter: '${at}.call_id'.`, at);
      const output = typeof item.output === 'string' ? item.output : textOf(parts(item.output, at));
      return out.push({ role: 'tool', tool_call_id: item.call_id, content: output });
    }
    if (type === 'reasoning') return;
    return fail(`Invalid value for '${at}.type': the router does not translate '${String(type)}' items.`, at);
  });
}

function tools(list: unknown[]): Obj[] {
  return list.map((t, i) => {
    if (!isObj(t) || t.type !== 'function' || typeof t.name !== 'string')
      return fail(`Invalid value for 'tools[${i}]': the router translates function tools only.`, `tools[${i}]`);
    const fn: Obj = { name: t.name, parameters: t.parameters ?? { type: 'object', properties: {} } };
    if (typeof t.description === 'string') fn.description = t.description;
    if (typeof t.strict === 'boolean') fn.strict = t.strict;
    return { type: 'function', function: fn };
  });
}

function toolChoice(c: unknown): unknown {
  if (c === 'auto' || c === 'none' || c === 'required') return c;
  if (isObj(c) && c.type === 'function' && typeof c.name === 'string')
    return { type: 'function', function: { name: c.name } };
  return fail("Invalid value for 'tool_choice'.", 'tool_choice');
}

/** `text.format` as chat `response_format`. */
function responseFormat(format: unknown): unknown {
  if (!isObj(format) || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema' && typeof format.name === 'string') {
    const schema: Obj = { name: format.name, schema: format.schema ?? {} };
    if (typeof format.strict === 'boolean') schema.strict = format.strict;
    if (typeof format.description === 'string') schema.description = format.description;
    return { type: 'json_schema', json_schema: schema };
  }
  return fail("Invalid value for 'text.format.type'.", 'text.format');
}

/**
 * A Responses API body decoded into the neutral chat request: `instructions` as a system message,
 * `input` items as turns (function calls and their outputs as tool calls and tool messages),
 * `max_output_tokens`, function tools, `tool_choice`, `text.format` as `response_format`;
 * `prompt_cache_key` kept for the adapters; an `item_reference` is the item the router returned
 * under that id (`recall`). The router keeps no conversations: `previous_response_id` is refused.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
export function decodeResponsesRequest(body: unknown, recall?: RecallItem): ChatRequest {
  if (!isObj(body)) return fail('Invalid type for request body: expected an object.', null);
  if (typeof body.model !== 'string' || body.model === '') fail("Missing required parameter: 'model'.", 'model');
  if (body.previous_response_id !== undefined && body.previous_response_id !== null)
    fail(
      "The router keeps no responses: send the whole conversation in 'input' instead of 'previous_response_id'.",
      'previous_response_id',
    );
  const messages: ChatMessage[] = [];
  if (typeof body.instructions === 'string') messages.push({ role: 'system', content: body.instructions });
  if (typeof body.input === 'string') messages.push({ role: 'user', content: body.input });
  else if (Array.isArray(body.input) && body.input.length > 0) inputItems(body.input, messages, recall);
  else fail("Missing required parameter: 'input'.", 'input');
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean')
    fail("Invalid type for 'stream': expected a boolean.", 'stream');
  const req: ChatRequest = { model: body.model as string, messages };
  const max = body.max_output_tokens;
  if (max !== undefined && max !== null) {
    if (!Number.isInteger(max) || (max as number) < 16)
      fail(`Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16.`, 'max_output_tokens');
    req.max_tokens = max as number;
  }
  if (body.stream === true) {
    req.stream = true;
    req.stream_options = { include_usage: true };
  }
  if (typeof body.temperature === 'number') req.temperature = body.temperature;
  if (typeof body.top_p === 'number') req.top_p = body.top_p;
  if (typeof body.user === 'string') req.user = body.user;
  if (typeof body.prompt_cache_key === 'string') req.prompt_cache_key = body.prompt_cache_key;
  if (Array.isArray(body.tools) && body.tools.length > 0) req.tools = tools(body.tools);
  if (body.tool_choice !== undefined && req.tools) req.tool_choice = toolChoice(body.tool_choice);
  if (typeof body.parallel_tool_calls === 'boolean' && req.tools) req.parallel_tool_calls = body.parallel_tool_calls;
  if (isObj(body.text)) {
    const rf = responseFormat(body.text.format);
    if (rf) req.response_format = rf;
  }
  return req;
}
