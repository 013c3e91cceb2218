import type { ChatMessage, ChatRequest } from '../core/types.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A problem with a Messages body, phrased as Anthropic's validator does. */
export class MessagesInvalid extends Error {}
const fail = (message: string): never => {
  throw new MessagesInvalid(message);
};

/** Extra fields carried on a part or tool unchanged, for the adapters that understand them (cache hints). */
function hints(block: Obj): Obj {
  return block.cache_control !== undefined ? { cache_control: block.cache_control } : {};
}

/** An Anthropic image block as an OpenAI `image_url` part (base64 sources as data URLs). */
function imagePart(block: Obj, at: string): Obj {
  const s = block.source;
  if (!isObj(s)) return fail(`${at}.source: Field required`);
  if (s.type === 'base64' && typeof s.media_type === 'string' && typeof s.data === 'string')
    return { type: 'image_url', image_url: { url: `data:${s.media_type};base64,${s.data}` }, ...hints(block) };
  if (s.type === 'url' && typeof s.url === 'string')
    return { type: 'image_url', image_url: { url: s.url }, ...hints(block) };
  return fail(`${at}.source: Input tag '${String(s.type)}' is not supported here; use base64 or url`);
}

/** The text of a tool result's content (a string or text blocks). */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (isObj(b) && typeof b.text === 'string' ? b.text : '')).join('');
}

function userTurn(content: unknown[], at: string, out: ChatMessage[]): void {
  const parts: Obj[] = [];
  content.forEach((b, i) => {
    const where = `${at}.content.${i}`;
    if (!isObj(b)) return fail(`${where}: Input should be a valid dictionary`);
    if (b.type === 'text' && typeof b.text === 'string') parts.push({ type: 'text', text: b.text, ...hints(b) });
    else if (b.type === 'image') parts.push(imagePart(b, where));
    else if (b.type === 'tool_result') {
      if (typeof b.tool_use_id !== 'string') return fail(`${where}.tool_use_id: Field required`);
      const text = resultText(b.content);
      out.push({
        role: 'tool',
        tool_call_id: b.tool_use_id,
        content: b.is_error === true ? `Error: ${text}` : text,
        ...hints(b),
      });
    } else fail(`${where}.type: the router does not translate '${String(b.type)}' blocks`);
  });
  if (parts.length > 0) out.push({ role: 'user', content: parts as ChatMessage['content'] });
}

function assistantTurn(content: unknown[], at: string, out: ChatMessage[]): void {
  let text = '';
  const calls: Obj[] = [];
  content.forEach((b, i) => {
    const where = `${at}.content.${i}`;
    if (!isObj(b)) return fail(`${where}: Input should be a valid dictionary`);
    if (b.type === 'text' && typeof b.text === 'string') text += b.text;
    else if (b.type === 'tool_use') {
      if (typeof b.id !== 'string' || typeof b.name !== 'string') return fail(`${where}: tool_use needs id and name`);
      calls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } });
    } else if (b.type !== 'thinking' && b.type !== 'redacted_thinking')
      fail(`${where}.type: the router does not translate '${String(b.type)}' blocks`);
  });
  out.push({ role: 'assistant', content: text || null, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
}

function toolChoice(c: unknown): unknown {
  if (!isObj(c)) return fail('tool_choice: Input should be a valid dictionary');
  if (c.type === 'auto') return 'auto';
  if (c.type === 'any') return 'required';
  if (c.type === 'none') return 'none';
  if (c.type === 'tool' && typeof c.name === 'string') return { type: 'function', function: { name: c.name } };
  return fail(`tool_choice.type: Input tag '${String(c.type)}' is not one of 'auto', 'any', 'tool', 'none'`);
}

/**
 * A Messages API body checked as Anthropic checks it (`max_tokens` required, roles `user` and
 * `assistant`) and decoded into the neutral chat request: `system` becomes a system message,
 * `tool_use` blocks tool calls, `tool_result` blocks tool messages, images `image_url` parts.
 * `cache_control` stays on the parts and tools it was given with, and at the top.
 * @see https://docs.anthropic.com/en/api/messages
 */
export function decodeMessagesRequest(body: unknown): ChatRequest {
  if (!isObj(body)) return fail('Input should be a valid dictionary');
  if (typeof body.model !== 'string' || body.model === '') fail('model: Field required');
  if (body.max_tokens === undefined) fail('max_tokens: Field required');
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1)
    fail('max_tokens: Input should be greater than or equal to 1');
  if (!Array.isArray(body.messages)) return fail('messages: Field required');
  if (body.messages.length === 0) fail('messages: at least one message is required');
  if (body.stream !== undefined && typeof body.stream !== 'boolean') fail('stream: Input should be a valid boolean');
  const messages: ChatMessage[] = [];
  if (typeof body.system === 'string') messages.push({ role: 'system', content: body.system });
  else if (Array.isArray(body.system))
    messages.push({
      role: 'system',
      content: body.system.map((b) =>
        isObj(b) && typeof b.text === 'string'
          ? { type: 'text', text: b.text, ...hints(b) }
          : fail('system: Input should be a valid list of text blocks'),
      ),
    });
  else if (body.system !== undefined) fail('system: Input should be a valid string');
  body.messages.forEach((m, i) => {
    const at = `messages.${i}`;
    if (!isObj(m) || (m.role !== 'user' && m.role !== 'assistant'))
      return fail(`${at}.role: Input should 'user' or 'assistant'`);
    if (typeof m.content === 'string') return messages.push({ role: m.role, content: m.content });
    if (!Array.isArray(m.content)) return fail(`${at}.content: Input should be a valid list`);
    return m.role === 'user' ? userTurn(m.content, at, messages) : assistantTurn(m.content, at, messages);
  });
  const req: ChatRequest = { model: body.model as string, messages, max_tokens: body.max_tokens as number };
  if (body.stream === true) {
    req.stream = true;
    req.stream_options = { include_usage: true };
  }
  if (typeof body.temperature === 'number') req.temperature = body.temperature;
  if (typeof body.top_p === 'number') req.top_p = body.top_p;
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0) req.stop = body.stop_sequences as string[];
  if (isObj(body.metadata) && typeof body.metadata.user_id === 'string') req.user = body.metadata.user_id;
  // Automatic caching: the adapters place it (Anthropic passes it on, Bedrock ends the prompt with a cachePoint).
  if (isObj(body.cache_control)) req.cache_control = body.cache_control;
  if (Array.isArray(body.tools) && body.tools.length > 0) {
    req.tools = body.tools.map((t, i) => {
      if (!isObj(t) || typeof t.name !== 'string') return fail(`tools.${i}.name: Field required`);
      if (t.type !== undefined && t.type !== 'custom')
        return fail(`tools.${i}.type: the router does not translate server tools ('${String(t.type)}')`);
      const fn: Obj = { name: t.name, parameters: t.input_schema ?? { type: 'object', properties: {} } };
      if (typeof t.description === 'string') fn.description = t.description;
      return { type: 'function', function: fn, ...hints(t) };
    });
  }
  if (body.tool_choice !== undefined) {
    req.tool_choice = toolChoice(body.tool_choice);
    if (isObj(body.tool_choice) && body.tool_choice.disable_parallel_tool_use === true) req.parallel_tool_calls = false;
  }
  return req;
}
