import type { VendorKind } from '../core/types.js';
import type { CallContext, Completed, EmbeddingsAdapter, HttpCall } from './adapter.js';
import { spliceMembers } from './splice-members.js';
import { withForward } from './with-forward.js';

/**
 * Embeddings on an OpenAI-compatible vendor: the client's body passes through with the target's
 * model to `…/embeddings` (Azure: the deployment's path), the list comes back as it is.
 * @see https://platform.openai.com/docs/api-reference/embeddings/create
 */
export function createOpenAIEmbeddings(vendor: VendorKind): EmbeddingsAdapter {
  const azure = vendor === 'azure-openai';
  return {
    buildRequest(req, ctx: CallContext): HttpCall {
      const url = azure
        ? `${ctx.baseUrl}/openai/deployments/${encodeURIComponent(ctx.model)}/embeddings?api-version=${encodeURIComponent(ctx.apiVersion ?? '2024-10-21')}`
        : `${ctx.baseUrl}/embeddings`;
      const own: Record<string, string> = azure
        ? { 'content-type': 'application/json', accept: 'application/json', 'api-key': ctx.apiKey }
        : { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${ctx.apiKey}` };
      return {
        method: 'POST',
        url,
        headers: withForward(ctx.forward, own),
        body:
          (ctx.raw !== undefined ? spliceMembers(ctx.raw, { model: JSON.stringify(ctx.model) }) : undefined) ??
          JSON.stringify({ ...req, model: ctx.model }),
      };
    },
    parse(text): Completed | { error: string } {
      let j: { data?: unknown; usage?: { prompt_tokens?: number } };
      try {
        j = JSON.parse(text);
      } catch {
        return { error: 'the provider answered 200 with a body that is not JSON' };
      }
      if (!j || !Array.isArray(j.data)) return { error: 'the provider answered 200 without data' };
      const prompt = j.usage?.prompt_tokens;
      return {
        body: text.trimStart(),
        usage: { promptTokens: prompt ?? 0, completionTokens: 0, estimated: typeof prompt !== 'number' },
      };
    },
  };
}
