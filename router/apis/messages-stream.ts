import type { StreamEncoder } from './api-codec.js';
import { chatStreamEncoder } from './chat-stream-encoder.js';
import { anthropicUsage, messageId, STOP_REASON } from './messages-response.js';

const ev = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** Anthropic's error type for an error the engine put in a stream. */
function streamErrorType(type: string | undefined, code: string | null | undefined): string {
  const t = `${type ?? ''} ${code ?? ''}`;
  if (/overload|unavailable|shutdown/i.test(t)) return 'overloaded_error';
  if (/timeout|deadline/i.test(t)) return 'timeout_error';
  if (/rate_limit/i.test(t)) return 'rate_limit_error';
  return 'api_error';
}

/**
 * Chat chunks as the Messages stream: `message_start`, a `content_block_start`/`_delta`/`_stop`
 * run per text or `tool_use` block (arguments as `input_json_delta`), `message_delta` with the
 * stop reason and usage, `message_stop`; an error in the stream becomes an `error` event.
 * @see https://docs.anthropic.com/en/api/messages-streaming
 */
export function messagesStreamEncoder(requestedModel: string): StreamEncoder {
  let block = -1;
  let open: 'text' | 'tool' | undefined;
  const close = () => {
    if (!open) return '';
    open = undefined;
    return ev('content_block_stop', { index: block });
  };
  return chatStreamEncoder({
    start: (c) =>
      ev('message_start', {
        message: {
          id: messageId(c.id),
          type: 'message',
          role: 'assistant',
          model: c.model ?? requestedModel,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      }),
    text(delta) {
      let out = '';
      if (open !== 'text') {
        out += close();
        open = 'text';
        out += ev('content_block_start', { index: ++block, content_block: { type: 'text', text: '' } });
      }
      return out + ev('content_block_delta', { index: block, delta: { type: 'text_delta', text: delta } });
    },
    toolCall(t) {
      let out = '';
      if (t.id) {
        out += close();
        open = 'tool';
        out += ev('content_block_start', {
          index: ++block,
          content_block: { type: 'tool_use', id: t.id, name: t.function?.name ?? '', input: {} },
        });
      }
      if (t.function?.arguments)
        out += ev('content_block_delta', {
          index: block,
          delta: { type: 'input_json_delta', partial_json: t.function.arguments },
        });
      return out;
    },
    done(finishReason, usage) {
      const u = anthropicUsage(usage);
      return (
        close() +
        ev('message_delta', {
          delta: { stop_reason: STOP_REASON[finishReason ?? 'stop'] ?? 'end_turn', stop_sequence: null },
          // Cumulative, as Anthropic's final usage is: cache reads and writes included.
          usage: {
            input_tokens: u.input_tokens,
            cache_creation_input_tokens: u.cache_creation_input_tokens,
            cache_read_input_tokens: u.cache_read_input_tokens,
            output_tokens: u.output_tokens,
          },
        }) +
        ev('message_stop', {})
      );
    },
    error: (e) =>
      ev('error', { error: { type: streamErrorType(e.type, e.code), message: e.message ?? 'upstream error' } }),
  });
}
