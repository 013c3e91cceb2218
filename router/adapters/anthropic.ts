import type { ChatRequest } from '../core/types.js';
import type { CallContext, Completed, HttpCall, ProviderAdapter, StreamTranslator, Translated } from './adapter.js';
import { ChunkWriter, completionBody, messageText } from './openai-chunks.js';

const STOP: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

/** OpenAI messages as Anthropic's `system` and alternating turns. */
function toAnthropic(req: ChatRequest): {
  system?: string;
  messages: Array<{ role: 'user' | 'assistant'; content: string }>;
} {
  const system: string[] = [];
  const messages: Array<{ role: 'user' | 'assistant'; content: string }> = [];
  for (const m of req.messages) {
    const text = messageText(m.content);
    if (m.role === 'system' || m.role === 'developer') system.push(text);
    else messages.push({ role: m.role === 'assistant' ? 'assistant' : 'user', content: text });
  }
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages };
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
    const { system, messages } = toAnthropic(req);
    const body: Record<string, unknown> = {
      model: ctx.model,
      max_tokens: req.max_completion_tokens ?? req.max_tokens ?? ctx.defaultMaxTokens,
      messages,
      stream,
    };
    if (system !== undefined) body.system = system;
    if (typeof req.temperature === 'number') body.temperature = req.temperature;
    if (typeof req.top_p === 'number') body.top_p = req.top_p;
    if (req.stop) body.stop_sequences = Array.isArray(req.stop) ? req.stop : [req.stop];
    return {
      method: 'POST',
      url: `${ctx.baseUrl}/v1/messages`,
      headers: {
        ...ctx.forward,
        'content-type': 'application/json',
        accept: stream ? 'text/event-stream' : 'application/json',
        'x-api-key': ctx.apiKey,
        'anthropic-version': '2023-06-01',
      },
      body: JSON.stringify(body),
    };
  },
  admissionTokens: (_req, input) => input,
  parseCompletion(text, ctx): Completed | { error: string } {
    let j: {
      id?: string;
      content?: Array<{ type: string; text?: string }>;
      stop_reason?: string;
      usage?: { input_tokens?: number; output_tokens?: number };
    };
    try {
      j = JSON.parse(text);
    } catch {
      return { error: 'the provider answered 200 with a body that is not JSON' };
    }
    if (!Array.isArray(j.content)) return { error: 'the provider answered 200 without content' };
    const out = j.content
      .filter((b) => b.type === 'text')
      .map((b) => b.text ?? '')
      .join('');
    const prompt = j.usage?.input_tokens ?? 0;
    const completion = j.usage?.output_tokens ?? 0;
    return {
      body: completionBody(
        j.id ?? 'msg',
        ctx.model,
        ctx.now,
        out,
        STOP[j.stop_reason ?? 'end_turn'] ?? 'stop',
        prompt,
        completion,
      ),
      usage: { promptTokens: prompt, completionTokens: completion, estimated: j.usage === undefined },
    };
  },
  streamTranslator(ctx, clientWantsUsage): StreamTranslator {
    let writer = new ChunkWriter('msg', ctx.model, ctx.now);
    let prompt = 0;
    let completion = 0;
    let contentEvents = 0;
    let finished = false;
    return {
      onEvent(data, event): Translated {
        let j: {
          type?: string;
          message?: { id?: string; usage?: { input_tokens?: number } };
          delta?: { type?: string; text?: string; stop_reason?: string };
          usage?: { output_tokens?: number };
          error?: { type?: string; message?: string };
        };
        try {
          j = JSON.parse(data);
        } catch {
          return {
            chunks: [],
            content: false,
            error: {
              message: 'the provider sent a stream event that is not JSON',
              type: 'upstream_error',
              code: 'malformed_stream',
            },
          };
        }
        switch (j.type ?? event) {
          case 'message_start':
            writer = new ChunkWriter(j.message?.id ?? 'msg', ctx.model, ctx.now);
            prompt = j.message?.usage?.input_tokens ?? 0;
            return { chunks: [writer.role()], content: false };
          case 'content_block_delta':
            if (j.delta?.type === 'text_delta' && j.delta.text) {
              contentEvents++;
              return { chunks: [writer.content(j.delta.text)], content: true };
            }
            return { chunks: [], content: false };
          case 'message_delta':
            completion = j.usage?.output_tokens ?? completion;
            return { chunks: [writer.finish(STOP[j.delta?.stop_reason ?? 'end_turn'] ?? 'stop')], content: false };
          case 'message_stop': {
            finished = true;
            const usage = { promptTokens: prompt, completionTokens: completion, estimated: false };
            return {
              chunks: clientWantsUsage ? [writer.usage(prompt, completion)] : [],
              content: false,
              done: true,
              usage,
            };
          }
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
            // ping, content_block_start, content_block_stop: not content.
            return { chunks: [], content: false };
        }
      },
      onEnd(): Translated {
        if (finished) return { chunks: [], content: false };
        return {
          chunks: [],
          content: false,
          usage: { promptTokens: prompt, completionTokens: Math.max(completion, contentEvents), estimated: true },
          error: {
            message: 'the provider closed the stream before message_stop',
            type: 'upstream_error',
            code: 'stream_truncated',
          },
        };
      },
    };
  },
};
