import type { ChatRequest } from '../core/types.js';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks the shape of a chat request as OpenAI would; returns the problem, or the request. */
export function validateChatRequest(
  body: unknown,
): { ok: true; req: ChatRequest } | { ok: false; message: string; param: string | null } {
  if (!isObj(body)) return { ok: false, message: 'Invalid type for request body: expected an object.', param: null };
  if (typeof body.model !== 'string' || body.model === '')
    return { ok: false, message: 'you must provide a model parameter', param: 'model' };
  if (!Array.isArray(body.messages))
    return { ok: false, message: "Missing required parameter: 'messages'.", param: 'messages' };
  if (body.messages.length === 0)
    return {
      ok: false,
      message: "Invalid 'messages': empty array. Expected an array with minimum length 1.",
      param: 'messages',
    };
  for (let i = 0; i < body.messages.length; i++) {
    const m = body.messages[i];
    if (!isObj(m) || typeof m.role !== 'string')
      return { ok: false, message: `Missing required parameter: 'messages[${i}].role'.`, param: `messages[${i}].role` };
    if (m.content !== null && m.content !== undefined && typeof m.content !== 'string' && !Array.isArray(m.content)) {
      return {
        ok: false,
        message: `Invalid type for 'messages[${i}].content': expected a string or an array.`,
        param: `messages[${i}].content`,
      };
    }
  }
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean')
    return { ok: false, message: "Invalid type for 'stream': expected a boolean.", param: 'stream' };
  for (const p of ['max_tokens', 'max_completion_tokens'] as const) {
    const v = body[p];
    if (v !== undefined && v !== null && (!Number.isInteger(v) || (v as number) < 1))
      return { ok: false, message: `Invalid '${p}': expected an integer >= 1.`, param: p };
  }
  return { ok: true, req: body as unknown as ChatRequest };
}
