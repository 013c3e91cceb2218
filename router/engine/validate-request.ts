import type { ChatRequest } from '../core/types.js';

// Far deeper than any chat request (tool schemas nest a dozen levels); deep enough bodies make
// JSON.stringify throw when the request is re-serialised for a provider.
export const MAX_DEPTH = 64;

/** Whether `value` nests objects or arrays deeper than `max`, found without recursion. */
export function depthOver(value: unknown, max: number): boolean {
  // Two stacks side by side rather than a pair per value: this walks every request's body.
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const child: unknown = v[i];
        if (child !== null && typeof child === 'object') {
          values.push(child);
          depths.push(depth + 1);
        }
      }
    } else {
      // Own enumerable members, as Object.values gives them, without an array per object.
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        const child: unknown = (v as Record<string, unknown>)[k];
        if (child !== null && typeof child === 'object') {
          values.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

const TOKEN_LIMITS = ['max_tokens', 'max_completion_tokens'] as const;

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
  // Failover may land on a vendor without `n` (Anthropic): answering one choice silently would lie.
  if (body.n !== undefined && body.n !== null && body.n !== 1)
    return {
      ok: false,
      message: "Invalid 'n': this router answers one choice per request; send n = 1 or leave it out.",
      param: 'n',
    };
  if (depthOver(body, MAX_DEPTH))
    return {
      ok: false,
      message: `Invalid request body: nested deeper than ${MAX_DEPTH} levels.`,
      param: null,
    };
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean')
    return { ok: false, message: "Invalid type for 'stream': expected a boolean.", param: 'stream' };
  for (const p of TOKEN_LIMITS) {
    const v = body[p];
    if (v !== undefined && v !== null && (!Number.isInteger(v) || (v as number) < 1))
      return { ok: false, message: `Invalid '${p}': expected an integer >= 1.`, param: p };
  }
  return { ok: true, req: body as unknown as ChatRequest };
}
