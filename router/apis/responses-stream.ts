import type { StreamEncoder } from './api-codec.js';
import type { ChatChunk, ChatFrame, ChatUsage } from './chat-frames.js';
import { chatStreamEncoder, type ChatStreamSteps, type ToolCallDelta } from './chat-stream-encoder.js';
import { callItem, messageItem, responseId, responseObject, responsesUsage } from './responses-response.js';

interface Call {
  id: string;
  name: string;
  args: string;
  output: number;
}

/**
 * The Responses stream's events at each step of a chat stream: one output item per text run or
 * tool call, numbered in the order they open, each closed with its `.done` events.
 */
class ResponsesSteps implements ChatStreamSteps {
  private seq = 0;
  private id = 'resp_router';
  private model: string;
  private created = 0;
  private openText: { output: number; text: string } | undefined;
  private readonly calls = new Map<number, Call>();
  private readonly output: unknown[] = [];

  constructor(
    private readonly requestedModel: string,
    private readonly remember?: (item: Record<string, unknown>) => void,
  ) {
    this.model = requestedModel;
  }

  private ev(type: string, data: Record<string, unknown>): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, ...data, sequence_number: this.seq++ })}\n\n`;
  }

  private msgId(): string {
    return `msg_${this.id.slice(5)}`;
  }

  private closeText(): string {
    if (!this.openText) return '';
    const t = this.openText;
    this.openText = undefined;
    const where = { item_id: this.msgId(), output_index: t.output, content_index: 0 };
    const item = messageItem(this.msgId(), t.text, 'completed');
    this.output[t.output] = item;
    this.remember?.(item);
    return (
      this.ev('response.output_text.done', { ...where, text: t.text, logprobs: [] }) +
      this.ev('response.content_part.done', {
        ...where,
        part: { type: 'output_text', text: t.text, annotations: [] },
      }) +
      this.ev('response.output_item.done', { output_index: t.output, item })
    );
  }

  private closeCalls(): string {
    let out = '';
    for (const c of this.calls.values()) {
      const item = callItem(c.id, c.name, c.args, 'completed');
      this.output[c.output] = item;
      this.remember?.(item);
      out += this.ev('response.function_call_arguments.done', {
        item_id: `fc_${c.id}`,
        output_index: c.output,
        arguments: c.args,
      });
      out += this.ev('response.output_item.done', { output_index: c.output, item });
    }
    this.calls.clear();
    return out;
  }

  start(c: ChatChunk): string {
    this.id = responseId(c.id);
    this.model = c.model ?? this.requestedModel;
    this.created = c.created ?? 0;
    const response = responseObject(this.id, this.model, this.created, 'in_progress', [], null);
    return this.ev('response.created', { response }) + this.ev('response.in_progress', { response });
  }

  text(delta: string): string {
    let out = '';
    if (!this.openText) {
      this.openText = { output: this.output.length, text: '' };
      this.output.push(null);
      const where = { item_id: this.msgId(), output_index: this.openText.output, content_index: 0 };
      out += this.ev('response.output_item.added', {
        output_index: this.openText.output,
        item: { id: this.msgId(), type: 'message', status: 'in_progress', role: 'assistant', content: [] },
      });
      out += this.ev('response.content_part.added', {
        ...where,
        part: { type: 'output_text', text: '', annotations: [] },
      });
    }
    this.openText.text += delta;
    return (
      out +
      this.ev('response.output_text.delta', {
        item_id: this.msgId(),
        output_index: this.openText.output,
        content_index: 0,
        delta,
        logprobs: [],
      })
    );
  }

  toolCall(t: ToolCallDelta): string {
    let out = '';
    const index = t.index ?? 0;
    let call = this.calls.get(index);
    if (!call) {
      out += this.closeText();
      call = { id: t.id ?? `call_${index}`, name: t.function?.name ?? '', args: '', output: this.output.length };
      this.output.push(null);
      this.calls.set(index, call);
      out += this.ev('response.output_item.added', {
        output_index: call.output,
        item: callItem(call.id, call.name, '', 'in_progress'),
      });
    }
    if (t.function?.arguments) {
      call.args += t.function.arguments;
      out += this.ev('response.function_call_arguments.delta', {
        item_id: `fc_${call.id}`,
        output_index: call.output,
        delta: t.function.arguments,
      });
    }
    return out;
  }

  done(finishReason: string | undefined, usage: ChatUsage | undefined): string {
    const out = this.closeText() + this.closeCalls();
    const status = finishReason === 'length' ? 'incomplete' : 'completed';
    const response = responseObject(this.id, this.model, this.created, status, this.output, responsesUsage(usage));
    return out + this.ev(`response.${status}`, { response });
  }

  error(e: Extract<ChatFrame, { kind: 'error' }>['error']): string {
    return this.ev('error', {
      code: e.code ?? e.type ?? 'server_error',
      message: e.message ?? 'upstream error',
      param: null,
    });
  }
}

/**
 * Chat chunks as the Responses stream's typed events, each `event: <type>` with a
 * `sequence_number`: `response.created`, `response.in_progress`, per output item
 * `response.output_item.added`, text as `response.output_text.delta` (with its content part
 * events) or arguments as `response.function_call_arguments.delta`, the `.done` events, then
 * `response.completed` (or `response.incomplete`) with usage; an error becomes an `error` event.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
export function responsesStreamEncoder(
  requestedModel: string,
  remember?: (item: Record<string, unknown>) => void,
): StreamEncoder {
  return chatStreamEncoder(new ResponsesSteps(requestedModel, remember));
}
