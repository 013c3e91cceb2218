import type { StreamFailure } from './adapter.js';

/** Builds OpenAI `chat.completion.chunk` JSON texts for streams translated from other vendors. */
export class ChunkWriter {
  private readonly prefix: string;

  constructor(id: string, model: string, createdMs: number) {
    this.prefix = `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${Math.floor(createdMs / 1000)},"model":${JSON.stringify(model)},"choices":`;
  }

  role(): string {
    return `${this.prefix}[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`;
  }

  content(text: string): string {
    return `${this.prefix}[{"index":0,"delta":{"content":${JSON.stringify(text)}},"finish_reason":null}]}`;
  }

  /** A tool call's start (with `id` and `name`) or a piece of its arguments. */
  toolCall(index: number, id: string | undefined, name: string | undefined, args: string): string {
    const fn =
      name !== undefined
        ? `{"name":${JSON.stringify(name)},"arguments":${JSON.stringify(args)}}`
        : `{"arguments":${JSON.stringify(args)}}`;
    const head = id !== undefined ? `"id":${JSON.stringify(id)},"type":"function",` : '';
    return `${this.prefix}[{"index":0,"delta":{"tool_calls":[{"index":${index},${head}"function":${fn}}]},"finish_reason":null}]}`;
  }

  finish(reason: string): string {
    return `${this.prefix}[{"index":0,"delta":{},"finish_reason":${JSON.stringify(reason)}}]}`;
  }

  usage(prompt: number, completion: number, cached = 0, written = 0): string {
    const details = cached > 0 ? `,"prompt_tokens_details":{"cached_tokens":${cached}}` : '';
    const writes = written > 0 ? `,"cache_creation_input_tokens":${written}` : '';
    return `${this.prefix}[],"usage":{"prompt_tokens":${prompt},"completion_tokens":${completion},"total_tokens":${prompt + completion}${details}${writes}}}`;
  }
}

/** The body of an OpenAI `chat.completion`. */
export function completionBody(
  id: string,
  model: string,
  createdMs: number,
  text: string,
  finishReason: string,
  prompt: number,
  completion: number,
  cached = 0,
  toolCalls: Array<{ id: string; name: string; arguments: string }> = [],
  written = 0,
): string {
  const created = Math.floor(createdMs / 1000);
  const total = prompt + completion;
  // The common answer (text, no tool calls, plain strings and finite counts), written directly:
  // the same text JSON.stringify makes of the object below, without building it per request.
  // Anything else (a provider's odd id or counts) goes through the serialiser.
  if (
    toolCalls.length === 0 &&
    typeof id === 'string' &&
    typeof model === 'string' &&
    typeof text === 'string' &&
    typeof finishReason === 'string' &&
    Number.isFinite(created) &&
    Number.isFinite(prompt) &&
    Number.isFinite(completion) &&
    Number.isFinite(total) &&
    Number.isFinite(cached) &&
    Number.isFinite(written)
  ) {
    const details =
      (cached > 0 ? `,"prompt_tokens_details":{"cached_tokens":${cached}}` : '') +
      (written > 0 ? `,"cache_creation_input_tokens":${written}` : '');
    return `{"id":${JSON.stringify(id)},"object":"chat.completion","created":${created},"model":${JSON.stringify(model)},"choices":[{"index":0,"message":{"role":"assistant","content":${JSON.stringify(text)},"refusal":null},"logprobs":null,"finish_reason":${JSON.stringify(finishReason)}}],"usage":{"prompt_tokens":${prompt},"completion_tokens":${completion},"total_tokens":${total}${details}}}`;
  }
  return JSON.stringify({
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && toolCalls.length > 0 ? null : text,
          refusal: null,
          ...(toolCalls.length > 0
            ? {
                tool_calls: toolCalls.map((c) => ({
                  id: c.id,
                  type: 'function',
                  function: { name: c.name, arguments: c.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: total,
      // Prompt-cache hits in OpenAI's place for them, whichever vendor served.
      ...(cached > 0 ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
      // Prompt-cache writes (Anthropic's, billed at 1.25×) where LiteLLM puts them: OpenAI has no place.
      ...(written > 0 ? { cache_creation_input_tokens: written } : {}),
    },
  });
}

/** An error frame for the client stream, in the shape the OpenAI SDKs raise during iteration. */
export function errorFrame(f: StreamFailure): string {
  return JSON.stringify({ error: { message: f.message, type: f.type, param: null, code: f.code } });
}

/** Splits OpenAI messages into text, for vendors that take plain text turns. */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p) =>
        p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string'
          ? (p as { text: string }).text
          : '',
      )
      .join('');
  }
  return '';
}
