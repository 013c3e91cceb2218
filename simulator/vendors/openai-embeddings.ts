import { openAIStreamError } from './openai-compatible.js';
import type { ApiSurface, ChatRequest, Completion, ErrorSpec, Route, StreamFrames } from './types.js';
import { stableHex } from './wire-format.js';

const invalid = (message: string, param: string): ErrorSpec => ({ kind: 'invalid_request', message, param });

// The width of a model's vectors when the request names none.
function defaultDimensions(model: string): number {
  if (/large/.test(model)) return 3072;
  if (/mistral-embed|codestral-embed/.test(model)) return 1024;
  return 1536;
}

/** The most inputs one request may carry. */
const MAX_INPUTS = 2048;

const isTokenList = (v: unknown): v is number[] => Array.isArray(v) && v.length > 0 && v.every(Number.isInteger);

/**
 * Validates an embeddings body: `model`, `input` (a string, strings, a token list or token
 * lists), `encoding_format` (`float`, or `base64` as the OpenAI SDK asks by default) and `dimensions`.
 * Inputs are counted as prompt tokens (token lists as their length), nothing is generated.
 * @see https://platform.openai.com/docs/api-reference/embeddings/create
 */
export function parseEmbeddingsRequest(route: Route & { kind: 'chat' }, body: unknown): ChatRequest | ErrorSpec {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return invalid('Invalid type for request body: expected an object.', 'body');
  const b = body as Record<string, unknown>;
  const model = route.model ?? b.model;
  if (typeof model !== 'string' || model === '') return invalid('you must provide a model parameter', 'model');
  const input = b.input;
  const items: unknown[] =
    typeof input === 'string' || isTokenList(input) ? [input] : Array.isArray(input) ? input : [];
  if (input === undefined) return invalid("Missing required parameter: 'input'.", 'input');
  if (items.length === 0) return invalid("'$.input' is invalid. Please check the API reference.", 'input');
  // The API's own bounds, which also keep a hostile request from asking for gigabytes of vectors.
  if (items.length > MAX_INPUTS)
    return invalid(
      `Invalid 'input': array too long. Expected an array with maximum length ${MAX_INPUTS}, but got an array with length ${items.length} instead.`,
      'input',
    );
  let promptText = '';
  let listed = 0;
  for (const item of items) {
    if (typeof item === 'string' && item !== '') promptText += (promptText ? '\n' : '') + item;
    else if (isTokenList(item)) listed += item.length;
    else return invalid("'$.input' is invalid. Please check the API reference.", 'input');
  }
  // Token lists are already tokens: four characters each keeps the estimate exact for them.
  if (listed > 0) promptText += ' '.repeat(listed * 4);
  const format = b.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64')
    return invalid("Invalid value for 'encoding_format': expected one of 'float' or 'base64'.", 'encoding_format');
  const dims = b.dimensions;
  if (dims !== undefined && dims !== null && (!Number.isInteger(dims) || (dims as number) < 1))
    return invalid("Invalid 'dimensions': integer below minimum value. Expected a value >= 1.", 'dimensions');
  if (typeof dims === 'number' && dims > defaultDimensions(model))
    return invalid(
      `Invalid 'dimensions': ${model} supports at most ${defaultDimensions(model)} dimensions, but got ${dims}.`,
      'dimensions',
    );
  return {
    model,
    stream: false,
    includeUsage: false,
    promptText,
    messageCount: 0,
    embedding: {
      inputs: items.length,
      dimensions: typeof dims === 'number' ? dims : defaultDimensions(model),
      encoding: format,
    },
  };
}

/** A unit vector derived from the answer id and the input's index: deterministic per seed. */
export function vector(seedText: string, dims: number): Float32Array {
  let h = Number.parseInt(stableHex(seedText, 8), 16) | 1;
  const v = new Float32Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    h ^= h << 13;
    h ^= h >>> 17;
    h ^= h << 5;
    const x = (h >>> 0) / 4294967296 - 0.5;
    v[i] = x;
    norm += x * x;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < dims; i++) v[i] = v[i]! * scale;
  return v;
}

/** An embeddings list: one vector per input, as floats or as base64 of little-endian float32s. */
export function encodeEmbeddings(c: Completion): string {
  const e = c.embedding!;
  const data: string[] = [];
  for (let i = 0; i < e.inputs; i++) {
    const v = vector(`${c.id}/${i}`, e.dimensions);
    const embedding =
      e.encoding === 'base64'
        ? `"${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')}"`
        : `[${Array.from(v, (x) => Number(x.toFixed(8))).join(',')}]`;
    data.push(`{"object":"embedding","index":${i},"embedding":${embedding}}`);
  }
  return `{"object":"list","data":[${data.join(',')}],"model":${JSON.stringify(c.model)},"usage":{"prompt_tokens":${c.inputTokens},"total_tokens":${c.inputTokens}}}`;
}

/** Embeddings on an OpenAI-compatible vendor; counted against the token quotas, never streamed. */
export const embeddingsApi: ApiSurface = {
  parse: parseEmbeddingsRequest,
  completion: encodeEmbeddings,
  stream: (c): StreamFrames => ({ head: [], content: () => '', tail: [encodeEmbeddings(c)] }),
  streamError: openAIStreamError,
};
