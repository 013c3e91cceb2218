import type { ChatRequest } from '../core/types.js';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isTokens = (v: unknown) => Array.isArray(v) && v.length > 0 && v.every(Number.isInteger);

/** Checks an embeddings body as OpenAI would (`model`, `input` of strings or token lists); returns the problem, or the request. */
export function validateEmbeddingsRequest(
  body: unknown,
): { ok: true; req: ChatRequest } | { ok: false; message: string; param: string | null } {
  if (!isObj(body)) return { ok: false, message: 'Invalid type for request body: expected an object.', param: null };
  if (typeof body.model !== 'string' || body.model === '')
    return { ok: false, message: 'you must provide a model parameter', param: 'model' };
  const input = body.input;
  if (input === undefined) return { ok: false, message: "Missing required parameter: 'input'.", param: 'input' };
  const items = typeof input === 'string' || isTokens(input) ? [input] : Array.isArray(input) ? input : [];
  if (items.length === 0 || !items.every((i) => (typeof i === 'string' && i !== '') || isTokens(i)))
    return { ok: false, message: "'$.input' is invalid. Please check the API reference.", param: 'input' };
  if (body.stream !== undefined && body.stream !== null && body.stream !== false)
    return { ok: false, message: 'Embeddings are not streamed.', param: 'stream' };
  // `messages` stays empty: the engine counts the inputs from `input` (see estimateInputTokens).
  return { ok: true, req: { ...body, model: body.model, messages: [] } as ChatRequest };
}
