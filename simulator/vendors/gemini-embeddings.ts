import type { ApiSurface, ChatRequest, Completion, EncodeContext, ErrorSpec, Route, StreamFrames } from './types.js';
import { vector } from './openai-embeddings.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const invalid = (message: string): ErrorSpec => ({ kind: 'invalid_request', message });

/** The most requests one `batchEmbedContents` call may carry. */
const MAX_BATCH = 100;

// The width of a model's vectors when the request names none: gemini-embedding-001 gives 3 072,
// the older text-embedding-004 and embedding-001 give 768.
function defaultDimensions(model: string): number {
  return /^gemini-embedding/.test(model) ? 3072 : 768;
}

// One EmbedContentRequest: its text, and its `outputDimensionality` if any; a message when malformed.
function oneRequest(r: unknown, where: string): { text: string; dims?: number } | string {
  if (!isObject(r) || !isObject(r.content) || !Array.isArray(r.content.parts) || r.content.parts.length === 0)
    return `* ${where}.content: content is not specified\n`;
  let text = '';
  for (const p of r.content.parts) {
    if (!isObject(p) || typeof p.text !== 'string')
      return `* ${where}.content.parts: only text parts can be embedded\n`;
    text += p.text;
  }
  const dims = r.outputDimensionality;
  if (dims === undefined || dims === null) return { text };
  if (!Number.isInteger(dims) || (dims as number) < 1)
    return `* ${where}.output_dimensionality: output_dimensionality must be positive\n`;
  return { text, dims: dims as number };
}

/**
 * Validates `models/{model}:embedContent` (`content`, `outputDimensionality`) and
 * `:batchEmbedContents` (`requests`, each an embedContent body naming `models/{model}`, at most
 * 100) bodies. Inputs are counted as prompt tokens; nothing is generated.
 * @see https://ai.google.dev/api/embeddings
 */
export function parseGeminiEmbeddings(route: Route & { kind: 'chat' }, body: unknown): ChatRequest | ErrorSpec {
  if (!isObject(body)) return invalid('Invalid JSON payload received. Expected an object.');
  const model = route.model ?? '';
  const batch = route.meta?.method === 'batchEmbedContents';
  let items: Array<{ text: string; dims?: number }>;
  if (batch) {
    if (!Array.isArray(body.requests) || body.requests.length === 0)
      return invalid('* BatchEmbedContentsRequest.requests: requests is not specified\n');
    if (body.requests.length > MAX_BATCH)
      return invalid(`* BatchEmbedContentsRequest.requests: at most ${MAX_BATCH} requests can be in one batch\n`);
    items = [];
    for (let i = 0; i < body.requests.length; i++) {
      const r = oneRequest(body.requests[i], `BatchEmbedContentsRequest.requests[${i}]`);
      if (typeof r === 'string') return invalid(r);
      items.push(r);
    }
  } else {
    const r = oneRequest(body, 'EmbedContentRequest');
    if (typeof r === 'string') return invalid(r);
    items = [r];
  }
  const dims = items[0]!.dims ?? defaultDimensions(model);
  if (dims > defaultDimensions(model))
    return invalid(
      `* EmbedContentRequest.output_dimensionality: ${model} supports at most ${defaultDimensions(model)} dimensions\n`,
    );
  return {
    model,
    stream: false,
    includeUsage: false,
    promptText: items.map((i) => i.text).join('\n'),
    messageCount: 0,
    embedding: { inputs: items.length, dimensions: dims, encoding: 'float' },
  };
}

const values = (c: Completion, i: number) =>
  `{"values":[${Array.from(vector(`${c.id}/${i}`, c.embedding!.dimensions), (x) => Number(x.toFixed(8))).join(',')}]}`;

/** `{"embedding":{"values":[…]}}` for embedContent, `{"embeddings":[{"values":[…]},…]}` for a batch. */
export function encodeGeminiEmbeddings(c: Completion, ctx: EncodeContext): string {
  if (ctx.meta?.method !== 'batchEmbedContents') return `{"embedding":${values(c, 0)}}`;
  const out: string[] = [];
  for (let i = 0; i < c.embedding!.inputs; i++) out.push(values(c, i));
  return `{"embeddings":[${out.join(',')}]}`;
}

/** Gemini's embeddings methods: metered on their input tokens, never streamed. */
export function geminiEmbeddingsApi(streamError: ApiSurface['streamError']): ApiSurface {
  return {
    parse: parseGeminiEmbeddings,
    completion: encodeGeminiEmbeddings,
    stream: (c, ctx): StreamFrames => ({ head: [], content: () => '', tail: [encodeGeminiEmbeddings(c, ctx)] }),
    streamError,
  };
}
