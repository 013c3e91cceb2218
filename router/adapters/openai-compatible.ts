import type { ChatRequest, Usage, VendorKind } from '../core/types.js';
import type { CallContext, Completed, HttpCall, ProviderAdapter, StreamTranslator, Translated } from './adapter.js';
import { withoutCacheControl } from './cache-hints.js';
import { contentChunkToken } from './content-chunk.js';
import { createOpenAIEmbeddings } from './openai-embeddings.js';
import { spliceMembers } from './splice-members.js';
import { notJsonEvent, truncatedStream } from './stream-failures.js';
import { topLevelMembers } from './top-level-members.js';
import { withForward } from './with-forward.js';

interface OpenAIChunk {
  choices?: Array<{ delta?: { content?: string | null; role?: string }; finish_reason?: string | null }>;
  usage?: OpenAIUsage | null;
  x_groq?: { usage?: OpenAIUsage };
  error?: { message?: string; type?: string; code?: string | null };
}

interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

function usageOf(u: OpenAIUsage | null | undefined): Usage | undefined {
  if (!u || typeof u.prompt_tokens !== 'number' || typeof u.completion_tokens !== 'number') return undefined;
  const usage: Usage = { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens, estimated: false };
  const cached = u.prompt_tokens_details?.cached_tokens;
  if (typeof cached === 'number' && cached > 0) usage.cachedTokens = cached;
  return usage;
}

// Vendors that accept `stream_options.include_usage`; Mistral rejects unknown fields.
const INCLUDE_USAGE = new Set<VendorKind>([
  'openai',
  'azure-openai',
  'groq',
  'deepseek',
  'openai-compatible',
  'openrouter',
  'cerebras',
  'together',
  'xai',
]);

/**
 * A chat request for an OpenAI-style API: the client's request with the target's model, usage
 * asked for on streams where the vendor accepts it.
 */
function chatCall(vendor: VendorKind, req: ChatRequest, ctx: CallContext, stream: boolean): HttpCall {
  const azure = vendor === 'azure-openai';
  // Anthropic's `cache_control` hints stay behind (OpenAI-style APIs cache by themselves and
  // refuse unknown fields); `prompt_cache_key` passes through with the rest.
  const clean = withoutCacheControl(req);
  const usage = stream && INCLUDE_USAGE.has(vendor);
  const options = usage ? { ...(req.stream_options ?? {}), include_usage: true } : undefined;
  // The client's own text with only these members changed, when it is the request as it came
  // (no hints dropped): nothing serialised again, however long the conversation.
  const spliced =
    ctx.raw !== undefined && clean === req
      ? spliceMembers(ctx.raw, {
          model: JSON.stringify(ctx.model),
          stream: stream ? 'true' : 'false',
          ...(options ? { stream_options: JSON.stringify(options) } : !stream ? { stream_options: null } : {}),
        })
      : undefined;
  let text = spliced;
  if (text === undefined) {
    const body: Record<string, unknown> = { ...clean, model: ctx.model, stream };
    if (options) body.stream_options = options;
    else if (!stream) delete body.stream_options;
    text = JSON.stringify(body);
  }
  const url = azure
    ? `${ctx.baseUrl}/openai/deployments/${encodeURIComponent(ctx.model)}/chat/completions?api-version=${encodeURIComponent(ctx.apiVersion ?? '2024-10-21')}`
    : `${ctx.baseUrl}/chat/completions`;
  const accept = stream ? 'text/event-stream' : 'application/json';
  const own: Record<string, string> = azure
    ? { 'content-type': 'application/json', accept, 'api-key': ctx.apiKey }
    : { 'content-type': 'application/json', accept, authorization: `Bearer ${ctx.apiKey}` };
  return {
    method: 'POST',
    url,
    headers: withForward(ctx.forward, own),
    body: text,
  };
}

/**
 * The answer passes on as it came: its top level is scanned (not parsed) for `choices`, and only
 * the small `usage` object is parsed, so a long completion is never parsed whole.
 */
function parseChatCompletion(text: string): Completed | { error: string } {
  const members = topLevelMembers(text);
  if (!members) return { error: 'the provider answered 200 with a body that is not a JSON object' };
  const choices = members.get('choices');
  if (!choices || text.charCodeAt(choices.valueStart) !== 0x5b)
    return { error: 'the provider answered 200 without choices' };
  const u = members.get('usage');
  let reported: OpenAIUsage | null | undefined;
  if (u) {
    try {
      reported = JSON.parse(text.slice(u.valueStart, u.valueEnd)) as OpenAIUsage | null;
    } catch {
      return { error: 'the provider answered 200 with a usage that is not JSON' };
    }
  }
  const usage = usageOf(reported) ?? { promptTokens: 0, completionTokens: 0, estimated: true };
  return { body: text.trimStart(), usage };
}

/** An OpenAI chunk stream, passed on as it came: usage kept, a usage-only chunk dropped unless asked for. */
class OpenAIStreamTranslator implements StreamTranslator {
  private finished = false;
  private usage: Usage | undefined;
  private contentChunks = 0;

  constructor(private readonly clientWantsUsage: boolean) {}

  onEvent(data: string): Translated {
    if (data === '[DONE]') {
      this.finished = true;
      return {
        chunks: [],
        content: false,
        done: true,
        usage: this.usage ?? { promptTokens: 0, completionTokens: this.contentChunks, estimated: true },
      };
    }
    // Most frames are a bare content chunk: recognised exactly without a parse, and passed on
    // as they came (no usage, no error, content when the string is not empty).
    const token = contentChunkToken(data);
    if (token !== undefined) {
      const content = token !== '""';
      if (content) this.contentChunks++;
      return { chunks: [data], content, usage: undefined };
    }
    let j: OpenAIChunk;
    try {
      j = JSON.parse(data);
    } catch {
      return notJsonEvent();
    }
    if (j.error)
      return {
        chunks: [],
        content: false,
        error: {
          message: j.error.message ?? 'upstream error',
          type: j.error.type ?? 'upstream_error',
          code: j.error.code ?? null,
        },
      };
    const u = usageOf(j.usage) ?? usageOf(j.x_groq?.usage);
    if (u) this.usage = u;
    const content = j.choices?.some((c) => typeof c.delta?.content === 'string' && c.delta.content.length > 0) ?? false;
    if (content) this.contentChunks++;
    // A usage-only chunk (empty choices) reaches the client only if it asked for usage.
    const usageOnly = Array.isArray(j.choices) && j.choices.length === 0 && u !== undefined;
    return { chunks: usageOnly && !this.clientWantsUsage ? [] : [data], content, usage: u };
  }

  onEnd(): Translated {
    if (this.finished) return { chunks: [], content: false };
    return truncatedStream('before it finished');
  }
}

/**
 * OpenAI and the vendors that speak its API (Azure OpenAI, Groq, Mistral, DeepSeek, OpenRouter,
 * Cerebras, Together, xAI, generic):
 * the client's request passes through with the target's model, usage is always requested on
 * streams (and dropped again when the client did not ask for it), and chunks pass through as
 * they are.
 */
export function createOpenAICompatibleAdapter(vendor: VendorKind): ProviderAdapter {
  return {
    vendor,
    embeddings: createOpenAIEmbeddings(vendor),
    buildRequest: (req: ChatRequest, ctx: CallContext, stream: boolean): HttpCall => chatCall(vendor, req, ctx, stream),
    admissionTokens(req, input) {
      const max = req.max_completion_tokens ?? req.max_tokens ?? 0;
      if (vendor === 'openai') return Math.max(input, max);
      return vendor === 'azure-openai' || vendor === 'cerebras' ? input + max : input;
    },
    parseCompletion: (text: string): Completed | { error: string } => parseChatCompletion(text),
    streamTranslator: (_ctx: CallContext, clientWantsUsage: boolean): StreamTranslator =>
      new OpenAIStreamTranslator(clientWantsUsage),
  };
}
