import type { StreamEncoder } from './api-codec.js';
import { readChatFrames, type ChatUsage } from './chat-frames.js';
import { anthropicErrorType, anthropicUsage, messageId, STOP_REASON } from './messages-response.js';

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
  let started = false;
  let ended = false;
  let block = -1;
  let open: 'text' | 'tool' | undefined;
  let stop = 'end_turn';
  let usage: ChatUsage | undefined;
  const close = () => {
    if (!open) return '';
    open = undefined;
    return ev('content_block_stop', { index: block });
  };
  const fail = (type: string, message: string) => {
    ended = true;
    return ev('error', { error: { type, message } });
  };
  return {
    get ended() {
      return ended;
    },
    push(frames) {
      let out = '';
      for (const f of readChatFrames(frames)) {
        if (ended) break;
        if (f.kind === 'error') {
          out += fail(streamErrorType(f.error.type, f.error.code), f.error.message ?? 'upstream error');
          continue;
        }
        if (f.kind === 'done') {
          out += close();
          const u = anthropicUsage(usage);
          out += ev('message_delta', {
            delta: { stop_reason: stop, stop_sequence: null },
            usage: { output_tokens: u.output_tokens, input_tokens: u.input_tokens },
          });
          out += ev('message_stop', {});
          ended = true;
          continue;
        }
        const c = f.chunk;
        if (!started) {
          started = true;
          out += ev('message_start', {
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
          });
        }
        if (c.usage) usage = c.usage;
        const choice = c.choices?.[0];
        const d = choice?.delta;
        if (typeof d?.content === 'string' && d.content !== '') {
          if (open !== 'text') {
            out += close();
            open = 'text';
            out += ev('content_block_start', { index: ++block, content_block: { type: 'text', text: '' } });
          }
          out += ev('content_block_delta', { index: block, delta: { type: 'text_delta', text: d.content } });
        }
        for (const t of d?.tool_calls ?? []) {
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
        }
        if (choice?.finish_reason) stop = STOP_REASON[choice.finish_reason] ?? 'end_turn';
      }
      return out;
    },
  };
}

export { anthropicErrorType };
