import type { CallContext, Completed, HttpCall, ProviderAdapter, StreamTranslator, Translated } from './adapter.js';
import { geminiEmbeddings } from './gemini-embeddings.js';
import { toGemini } from './gemini-request.js';
import { ChunkWriter, completionBody } from './openai-chunks.js';
import { notJsonEvent, truncatedStream } from './stream-failures.js';
import { withForward } from './with-forward.js';

export { toGemini };

const FINISH: Record<string, string> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
};

interface GeminiChunk {
  candidates?: Array<{
    content?: { parts?: Array<{ text?: string; functionCall?: { id?: string; name?: string; args?: unknown } }> };
    finishReason?: string;
  }>;
  usageMetadata?: { promptTokenCount?: number; candidatesTokenCount?: number; cachedContentTokenCount?: number };
  responseId?: string;
  error?: { code?: number; message?: string; status?: string };
}

function textOf(c: GeminiChunk): string {
  return c.candidates?.[0]?.content?.parts?.map((p) => p.text ?? '').join('') ?? '';
}

let unnamed = 0;

/**
 * What a response's tool-call ids start with: its `responseId`, unique per response, kept to the
 * characters every vendor accepts in an id (Anthropic: `^[a-zA-Z0-9_-]+$`); without one, the time
 * and a count of this process's responses.
 */
function callIdBase(responseId: string | undefined, now: number): string {
  const clean = responseId?.replace(/[^A-Za-z0-9_-]/g, '');
  return clean ? clean : `g${now.toString(36)}${(unnamed++).toString(36)}`;
}

/**
 * A chunk's function calls as OpenAI tool calls, numbered from `from` within the response. Gemini
 * gives a call an `id` only sometimes; the others get one unique to the response, for an agent's
 * history keeps every call it made, and a later turn served by Anthropic refuses repeated ids
 * ("tool_use ids must be unique"): `call_0` on every Gemini answer broke that.
 */
function callsOf(c: GeminiChunk, from: number, base: string): Array<{ id: string; name: string; arguments: string }> {
  const out: Array<{ id: string; name: string; arguments: string }> = [];
  for (const p of c.candidates?.[0]?.content?.parts ?? [])
    if (p.functionCall?.name)
      out.push({
        id: p.functionCall.id || `call_${base}_${from + out.length}`,
        name: p.functionCall.name,
        arguments: JSON.stringify(p.functionCall.args ?? {}),
      });
  return out;
}

/** Gemini's `streamGenerateContent` chunks as OpenAI chunks; the one with a finish reason ends the stream. */
class GeminiStreamTranslator implements StreamTranslator {
  private writer: ChunkWriter | undefined;
  private finished = false;
  private prompt = 0;
  private cached = 0;
  private completion = 0;
  private contentChunks = 0;
  private calls = 0;
  private callBase: string | undefined;

  constructor(
    private readonly ctx: CallContext,
    private readonly clientWantsUsage: boolean,
  ) {}

  onEvent(data: string): Translated {
    let j: GeminiChunk;
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
          type: j.error.status ?? 'upstream_error',
          code: j.error.status ?? null,
        },
      };
    const chunks: string[] = [];
    if (!this.writer) {
      this.writer = new ChunkWriter(j.responseId ?? 'gemini', this.ctx.model, this.ctx.now);
      chunks.push(this.writer.role());
    }
    const writer = this.writer;
    const text = textOf(j);
    if (text) {
      this.contentChunks++;
      chunks.push(writer.content(text));
    }
    this.callBase ??= callIdBase(j.responseId, this.ctx.now);
    const called = callsOf(j, this.calls, this.callBase);
    for (const c of called) chunks.push(writer.toolCall(this.calls++, c.id, c.name, c.arguments));
    const content = text.length > 0 || called.length > 0;
    this.prompt = j.usageMetadata?.promptTokenCount ?? this.prompt;
    this.cached = j.usageMetadata?.cachedContentTokenCount ?? this.cached;
    const reason = j.candidates?.[0]?.finishReason;
    if (reason) return this.finish(j, reason, chunks, content);
    return { chunks, content };
  }

  private finish(j: GeminiChunk, reason: string, chunks: string[], content: boolean): Translated {
    const { prompt, cached } = this;
    this.finished = true;
    this.completion = j.usageMetadata?.candidatesTokenCount ?? this.completion;
    chunks.push(this.writer!.finish(this.calls > 0 ? 'tool_calls' : (FINISH[reason] ?? 'stop')));
    if (this.clientWantsUsage) chunks.push(this.writer!.usage(prompt, this.completion, cached));
    return {
      chunks,
      content,
      done: true,
      usage: {
        promptTokens: prompt,
        completionTokens: this.completion,
        ...(cached > 0 ? { cachedTokens: cached } : {}),
        estimated: false,
      },
    };
  }

  onEnd(): Translated {
    if (this.finished) return { chunks: [], content: false };
    const usage = { promptTokens: this.prompt, completionTokens: this.contentChunks, estimated: true };
    return truncatedStream('without a finish reason', usage);
  }
}

/**
 * Gemini `generateContent` behind an OpenAI face: system messages become `systemInstruction`,
 * assistant turns `model`; `streamGenerateContent?alt=sse` chunks become OpenAI chunks. Gemini's
 * stream has no terminator, so a stream is complete only once a chunk carries a finish reason.
 * @see https://ai.google.dev/api/generate-content
 */
export const geminiAdapter: ProviderAdapter = {
  vendor: 'gemini',
  embeddings: geminiEmbeddings,
  buildRequest(req, ctx, stream): HttpCall {
    const model = encodeURIComponent(ctx.model);
    return {
      method: 'POST',
      url: `${ctx.baseUrl}/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
      headers: withForward(ctx.forward, { 'content-type': 'application/json', 'x-goog-api-key': ctx.apiKey }),
      body: JSON.stringify(toGemini(req, req.max_completion_tokens ?? req.max_tokens ?? undefined)),
    };
  },
  admissionTokens: (_req, input) => input,
  parseCompletion(text, ctx): Completed | { error: string } {
    let j: GeminiChunk;
    try {
      j = JSON.parse(text);
    } catch {
      return { error: 'the provider answered 200 with a body that is not JSON' };
    }
    if (!Array.isArray(j.candidates)) return { error: 'the provider answered 200 without candidates' };
    const prompt = j.usageMetadata?.promptTokenCount ?? 0;
    const completion = j.usageMetadata?.candidatesTokenCount ?? 0;
    const cached = j.usageMetadata?.cachedContentTokenCount ?? 0;
    const calls = callsOf(j, 0, callIdBase(j.responseId, ctx.now));
    return {
      body: completionBody(
        j.responseId ?? 'gemini',
        ctx.model,
        ctx.now,
        textOf(j),
        calls.length > 0 ? 'tool_calls' : (FINISH[j.candidates[0]?.finishReason ?? 'STOP'] ?? 'stop'),
        prompt,
        completion,
        cached,
        calls,
      ),
      usage: {
        promptTokens: prompt,
        completionTokens: completion,
        ...(cached > 0 ? { cachedTokens: cached } : {}),
        estimated: j.usageMetadata === undefined,
      },
    };
  },
  streamTranslator: (ctx, clientWantsUsage): StreamTranslator => new GeminiStreamTranslator(ctx, clientWantsUsage),
};
