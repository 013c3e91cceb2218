import type { StreamEncoder } from './api-codec.js';
import { readChatFrames, type ChatChunk, type ChatFrame, type ChatUsage } from './chat-frames.js';

type Delta = NonNullable<NonNullable<ChatChunk['choices']>[number]['delta']>;

/** A piece of a tool call in a chat chunk. */
export type ToolCallDelta = NonNullable<Delta['tool_calls']>[number];

/** What an inbound API writes at each step of a relayed chat stream. */
export interface ChatStreamSteps {
  /** The first chunk: the API's opening events. */
  start(chunk: ChatChunk): string;
  /** A piece of the assistant's text (never empty). */
  text(delta: string): string;
  /** A piece of a tool call. */
  toolCall(delta: ToolCallDelta): string;
  /** The terminator, with the last finish reason and the last usage the chunks carried. */
  done(finishReason: string | undefined, usage: ChatUsage | undefined): string;
  /** An error event in the stream. */
  error(error: Extract<ChatFrame, { kind: 'error' }>['error']): string;
}

/**
 * The walk over relayed chat frames that every inbound API's stream shares: `steps.start` at the
 * first chunk, then each chunk's text and tool-call pieces in order, `steps.done` at the
 * terminator or `steps.error` at an error event, after which the stream has ended and later
 * frames are dropped.
 */
export function chatStreamEncoder(steps: ChatStreamSteps): StreamEncoder {
  let started = false;
  let ended = false;
  let finishReason: string | undefined;
  let usage: ChatUsage | undefined;
  return {
    get ended() {
      return ended;
    },
    push(frames) {
      let out = '';
      for (const f of readChatFrames(frames)) {
        if (ended) break;
        if (f.kind !== 'chunk') {
          out += f.kind === 'error' ? steps.error(f.error) : steps.done(finishReason, usage);
          ended = true;
          continue;
        }
        const c = f.chunk;
        if (!started) {
          started = true;
          out += steps.start(c);
        }
        if (c.usage) usage = c.usage;
        const choice = c.choices?.[0];
        const d = choice?.delta;
        if (typeof d?.content === 'string' && d.content !== '') out += steps.text(d.content);
        for (const t of d?.tool_calls ?? []) out += steps.toolCall(t);
        if (choice?.finish_reason) finishReason = choice.finish_reason;
      }
      return out;
    },
  };
}
