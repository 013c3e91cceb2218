import type { HttpCall, ProviderAdapter } from './adapter.js';
import { geminiAdapter, toGemini } from './gemini.js';
import { withForward } from './with-forward.js';

/**
 * Gemini on Vertex AI: the base URL runs to the location
 * (`…/v1/projects/P/locations/L`), models live under `publishers/google/models/`, the key is an
 * OAuth access token sent as Bearer; bodies and streams are Gemini's.
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference
 */
export const vertexAIAdapter: ProviderAdapter = {
  ...geminiAdapter,
  vendor: 'vertex-ai',
  // Vertex embeds through `:predict` with another body, which this router does not speak yet.
  embeddings: undefined,
  buildRequest(req, ctx, stream): HttpCall {
    const model = encodeURIComponent(ctx.model);
    return {
      method: 'POST',
      url: `${ctx.baseUrl}/publishers/google/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
      headers: withForward(ctx.forward, { 'content-type': 'application/json', authorization: `Bearer ${ctx.apiKey}` }),
      body: JSON.stringify(toGemini(req, req.max_completion_tokens ?? req.max_tokens ?? undefined)),
    };
  },
};
