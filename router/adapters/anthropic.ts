import type { Usage } from '../core/types.js';
import type { CallContext, Completed, HttpCall, ProviderAdapter, StreamTranslator, Translated } from './adapter.js';
import { toAnthropic } from './anthropic-request.js';
import { ChunkWriter, completionBody } from './openai-chunks.js';
import { notJsonEvent, truncatedStream } from './stream-failures.js';
import { withForward } from './with-forward.js';

interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/**
 * Anthropic's input split (after the last breakpoint, cache reads, cache writes) as OpenAI counts
 * it: `prompt_tokens` is the whole input, cache reads are `cached_tokens`.
 */
function inputUsage(u: AnthropicUsage | undefined): {
  promptTokens: number;
  cachedTokens?: number;
  cacheWriteTokens?: number;
} {
  const read = u?.cache_read_input_tokens ?? 0;
  const write = u?.cache_creation_input_tokens ?? 0;
  const out: { promptTokens: number; cachedTokens?: number; cacheWriteTokens?: number } = {
    promptTokens: (u?.input_tokens ?? 0) + read + write,
  };
  if (read > 0) out.cachedTokens = read;
  if (write > 0) out.cacheWriteTokens = write;
  return out;
}

/**
 * `{ ...input, completionTokens, estimated }`, members in that order, built by assignment: a
 * spread of an object followed by more members costs a microsecond in Node, on every answer.
 */
function usageWith(input: ReturnType<typeof inputUsage>, completionTokens: number, estimated: boolean): Usage {
  const out = { promptTokens: input.promptTokens } as Usage;
  if ('cachedTokens' in input) out.cachedTokens = input.cachedTokens;
  if ('cacheWriteTokens' in input) out.cacheWriteTokens = input.cacheWriteTokens;
  out.completionTokens = completionTokens;
  out.estimated = estimated;
  return out;
}

const STOP: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

interface AnthropicEvent {
  type?: string;
  message?: { id?: string; usage?: AnthropicUsage };
  index?: number;
  content_block?: { type?: string; id?: string; name?: string };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string };
  usage?: { output_tokens?: number };
  error?: { type?: string; message?: string };
}

const NOTHING: () => Translated = () => ({ chunks: [], content: false });

/** Anthropic's event stream as OpenAI chunks, event by event. */
class AnthropicStreamTranslator implements StreamTranslator {
  private writer: ChunkWriter;
  private input: ReturnType<typeof inputUsage> = { promptTokens: 0 };
  private completion = 0;
  private contentEvents = 0;
  private finished = false;
  /** Content block index → OpenAI tool call index, for the `tool_use` blocks of this message. */
  private readonly tools = new Map<number, number>();

  constructor(
    private readonly ctx: CallContext,
    private readonly clientWantsUsage: boolean,
  ) {
    this.writer = new ChunkWriter('msg', ctx.model, ctx.now);
  }

  onEvent(data: string, event: string | undefined): Translated {
    let j: AnthropicEvent;
    try {
      j = JSON.parse(data);
    } catch {
      return notJsonEvent();
    }
    switch (j.type ?? event) {
      case 'message_start':
        this.writer = new ChunkWriter(j.message?.id ?? 'msg', this.ctx.model, this.ctx.now);
        this.input = inputUsage(j.message?.usage);
        return { chunks: [this.writer.role()], content: false };
      case 'content_block_delta':
        return this.blockDelta(j);
      case 'content_block_start':
        return this.blockStart(j);
      case 'message_delta':
        this.completion = j.usage?.output_tokens ?? this.completion;
        return { chunks: [this.writer.finish(STOP[j.delta?.stop_reason ?? 'end_turn'] ?? 'stop')], content: false };
      case 'message_stop':
        return this.stop();
      case 'error':
        return {
          chunks: [],
          content: false,
          error: {
            message: j.error?.message ?? 'upstream error',
            type: j.error?.type ?? 'upstream_error',
            code: j.error?.type ?? null,
          },
        };
      default:
        // ping, content_block_stop: not content.
        return NOTHING();
    }
  }

  private blockDelta(j: AnthropicEvent): Translated {
    if (j.delta?.type === 'text_delta' && j.delta.text) {
      this.contentEvents++;
      return { chunks: [this.writer.content(j.delta.text)], content: true };
    }
    if (j.delta?.type === 'input_json_delta' && j.delta.partial_json && this.tools.has(j.index ?? -1))
      return {
        chunks: [this.writer.toolCall(this.tools.get(j.index!)!, undefined, undefined, j.delta.partial_json)],
        content: true,
      };
    return NOTHING();
  }

  private blockStart(j: AnthropicEvent): Translated {
    if (j.content_block?.type !== 'tool_use') return NOTHING();
    const index = this.tools.size;
    this.tools.set(j.index ?? -1, index);
    this.contentEvents++;
    return {
      chunks: [this.writer.toolCall(index, j.content_block.id ?? `call_${index}`, j.content_block.name ?? '', '')],
      content: true,
    };
  }

  private stop(): Translated {
    this.finished = true;
    const { input, completion } = this;
    const usage = usageWith(input, completion, false);
    return {
      chunks: this.clientWantsUsage
        ? [this.writer.usage(input.promptTokens, completion, input.cachedTokens, input.cacheWriteTokens)]
        : [],
      content: false,
      done: true,
      usage,
    };
  }

  onEnd(): Translated {
    if (this.finished) return NOTHING();
    const usage = usageWith(this.input, Math.max(this.completion, this.contentEvents), true);
    return truncatedStream('before message_stop', usage);
  }
}

/**
 * Anthropic Messages API behind an OpenAI face: system messages become `system`, `max_tokens`
 * (required) comes from the client or the configured default, answers and event streams
 * (`message_start`, `content_block_delta`, `message_delta`, `ping`, `error`) become OpenAI
 * chunks with usage.
 * @see https://docs.anthropic.com/en/api/messages-streaming
 */
export const anthropicAdapter: ProviderAdapter = {
  vendor: 'anthropic',
  buildRequest(req, ctx, stream): HttpCall {
    const body: Record<string, unknown> = {
      model: ctx.model,
      max_tokens: req.max_completion_tokens ?? req.max_tokens ?? ctx.defaultMaxTokens,
      ...toAnthropic(req),
      stream,
    };
    // Automatic caching: a top-level breakpoint the API moves to the last cacheable block.
    if (req.cache_control != null) body.cache_control = req.cache_control;
    if (typeof req.temperature === 'number') body.temperature = req.temperature;
    if (typeof req.top_p === 'number') body.top_p = req.top_p;
    if (req.stop) body.stop_sequences = Array.isArray(req.stop) ? req.stop : [req.stop];
    const own: Record<string, string> = {
      'content-type': 'application/json',
      accept: stream ? 'text/event-stream' : 'application/json',
      'x-api-key': ctx.apiKey,
      'anthropic-version': '2023-06-01',
    };
    // Structured outputs (`output_format`) are a beta.
    if (body.output_format) own['anthropic-beta'] = 'structured-outputs-2025-11-13';
    return {
      method: 'POST',
      url: `${ctx.baseUrl}/v1/messages`,
      headers: withForward(ctx.forward, own),
      body: JSON.stringify(body),
    };
  },
  admissionTokens: (_req, input) => input,
  parseCompletion(text, ctx): Completed | { error: string } {
    let j: {
      id?: string;
      content?: Array<{ type: string; text?: string; id?: string; name?: string; input?: unknown }>;
      stop_reason?: string;
      usage?: AnthropicUsage;
    };
    try {
      j = JSON.parse(text);
    } catch {
      return { error: 'the provider answered 200 with a body that is not JSON' };
    }
    if (!Array.isArray(j.content)) return { error: 'the provider answered 200 without content' };
    // One pass over the blocks, no intermediate arrays: the text as `join('')` makes it (a missing
    // text as '', anything else as its string), and the tool calls in order.
    let out = '';
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    for (let i = 0; i < j.content.length; i++) {
      const b = j.content[i]!;
      if (b.type === 'text') out += String(b.text ?? '');
    }
    const input = inputUsage(j.usage);
    for (let i = 0; i < j.content.length; i++) {
      const b = j.content[i]!;
      if (b.type === 'tool_use' && typeof b.id === 'string')
        calls.push({ id: b.id, name: b.name ?? '', arguments: JSON.stringify(b.input ?? {}) });
    }
    const completion = j.usage?.output_tokens ?? 0;
    return {
      body: completionBody(
        j.id ?? 'msg',
        ctx.model,
        ctx.now,
        out,
        STOP[j.stop_reason ?? 'end_turn'] ?? 'stop',
        input.promptTokens,
        completion,
        input.cachedTokens ?? 0,
        calls,
        input.cacheWriteTokens ?? 0,
      ),
      usage: usageWith(input, completion, j.usage === undefined),
    };
  },
  streamTranslator: (ctx, clientWantsUsage): StreamTranslator => new AnthropicStreamTranslator(ctx, clientWantsUsage),
};
