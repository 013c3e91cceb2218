import type { ChatRequest } from '../core/types.js';
import type { CallContext, Completed, EmbeddingsAdapter, HttpCall } from './adapter.js';
import { withForward } from './with-forward.js';

/** The inputs of an OpenAI embeddings body as texts; token lists cannot be sent to Gemini. */
function texts(input: unknown): string[] {
  const items = typeof input === 'string' ? [input] : Array.isArray(input) ? input : [];
  if (items.length === 0) throw new Error('`input` must be a string or a list of strings');
  return items.map((i) => {
    if (typeof i !== 'string') throw new Error('Gemini embeds text only: `input` must not be token lists');
    return i;
  });
}

/**
 * Embeddings on Gemini behind OpenAI's face: every `input` goes as one request of a
 * `models/{model}:batchEmbedContents` call (`dimensions` as `outputDimensionality`), and the
 * `embeddings[].values` come back as OpenAI's list, as floats or as base64 of little-endian
 * float32s when the client asked (`encoding_format: base64`, the OpenAI SDK's default). Gemini
 * reports no token usage for embeddings: usage is estimated.
 * @see https://ai.google.dev/api/embeddings
 */
export const geminiEmbeddings: EmbeddingsAdapter = {
  buildRequest(req: ChatRequest, ctx: CallContext): HttpCall {
    const model = `models/${ctx.model}`;
    const dims = typeof req.dimensions === 'number' ? { outputDimensionality: req.dimensions } : {};
    return {
      method: 'POST',
      url: `${ctx.baseUrl}/v1beta/models/${encodeURIComponent(ctx.model)}:batchEmbedContents`,
      headers: withForward(ctx.forward, { 'content-type': 'application/json', 'x-goog-api-key': ctx.apiKey }),
      body: JSON.stringify({
        requests: texts(req.input).map((text) => ({ model, content: { parts: [{ text }] }, ...dims })),
      }),
    };
  },
  parse(text: string, req?: ChatRequest): Completed | { error: string } {
    let j: { embeddings?: Array<{ values?: unknown }> };
    try {
      j = JSON.parse(text);
    } catch {
      return { error: 'the provider answered 200 with a body that is not JSON' };
    }
    if (!j || !Array.isArray(j.embeddings)) return { error: 'the provider answered 200 without embeddings' };
    const base64 = req?.encoding_format === 'base64';
    const data: string[] = [];
    for (let i = 0; i < j.embeddings.length; i++) {
      const v = j.embeddings[i]?.values;
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'number'))
        return { error: 'the provider answered 200 with an embedding that is not a list of numbers' };
      const embedding = base64
        ? JSON.stringify(Buffer.from(Float32Array.from(v as number[]).buffer).toString('base64'))
        : JSON.stringify(v);
      data.push(`{"object":"embedding","index":${i},"embedding":${embedding}}`);
    }
    const model = JSON.stringify(typeof req?.model === 'string' ? req.model : '');
    return {
      body: `{"object":"list","data":[${data.join(',')}],"model":${model},"usage":{"prompt_tokens":0,"total_tokens":0}}`,
      usage: { promptTokens: 0, completionTokens: 0, estimated: true },
    };
  },
};
