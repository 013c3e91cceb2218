import type { StreamEncoder } from './api-codec.js';
import { chatStreamEncoder } from './chat-stream-encoder.js';
import { callItem, messageItem, responseId, responseObject, responsesUsage } from './responses-response.js';

interface Call {
  id: string;
  name: string;
  args: string;
  output: number;
}

/**
 * Chat chunks as the Responses stream's typed events, each `event: <type>` with a
 * `sequence_number`: `response.created`, `response.in_progress`, per output item
 * `response.output_item.added`, text as `response.output_text.delta` (with its content part
 * events) or arguments as `response.function_call_arguments.delta`, the `.done` events, then
 * `response.completed` (or `response.incomplete`) with usage; an error becomes an `error` event.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
export function responsesStreamEncoder(requestedModel: string): StreamEncoder {
  let seq = 0;
  let id = 'resp_router';
  let model = requestedModel;
  let created = 0;
  let text: { output: number; text: string } | undefined;
  const calls = new Map<number, Call>();
  const output: unknown[] = [];
  const ev = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data, sequence_number: seq++ })}\n\n`;
  const msgId = () => `msg_${id.slice(5)}`;
  const closeText = () => {
    if (!text) return '';
    const t = text;
    text = undefined;
    const where = { item_id: msgId(), output_index: t.output, content_index: 0 };
    const item = messageItem(msgId(), t.text, 'completed');
    output[t.output] = item;
    return (
      ev('response.output_text.done', { ...where, text: t.text, logprobs: [] }) +
      ev('response.content_part.done', { ...where, part: { type: 'output_text', text: t.text, annotations: [] } }) +
      ev('response.output_item.done', { output_index: t.output, item })
    );
  };
  const closeCalls = () => {
    let out = '';
    for (const c of calls.values()) {
      const item = callItem(c.id, c.name, c.args, 'completed');
      output[c.output] = item;
      out += ev('response.function_call_arguments.done', {
        item_id: `fc_${c.id}`,
        output_index: c.output,
        arguments: c.args,
      });
      out += ev('response.output_item.done', { output_index: c.output, item });
    }
    calls.clear();
    return out;
  };
  return chatStreamEncoder({
    start(c) {
      id = responseId(c.id);
      model = c.model ?? requestedModel;
      created = c.created ?? 0;
      const response = responseObject(id, model, created, 'in_progress', [], null);
      return ev('response.created', { response }) + ev('response.in_progress', { response });
    },
    text(delta) {
      let out = '';
      if (!text) {
        text = { output: output.length, text: '' };
        output.push(null);
        const where = { item_id: msgId(), output_index: text.output, content_index: 0 };
        out += ev('response.output_item.added', {
          output_index: text.output,
          item: { id: msgId(), type: 'message', status: 'in_progress', role: 'assistant', content: [] },
        });
        out += ev('response.content_part.added', {
          ...where,
          part: { type: 'output_text', text: '', annotations: [] },
        });
      }
      text.text += delta;
      return (
        out +
        ev('response.output_text.delta', {
          item_id: msgId(),
          output_index: text.output,
          content_index: 0,
          delta,
          logprobs: [],
        })
      );
    },
    toolCall(t) {
      let out = '';
      const index = t.index ?? 0;
      let call = calls.get(index);
      if (!call) {
        out += closeText();
        call = { id: t.id ?? `call_${index}`, name: t.function?.name ?? '', args: '', output: output.length };
        output.push(null);
        calls.set(index, call);
        out += ev('response.output_item.added', {
          output_index: call.output,
          item: callItem(call.id, call.name, '', 'in_progress'),
        });
      }
      if (t.function?.arguments) {
        call.args += t.function.arguments;
        out += ev('response.function_call_arguments.delta', {
          item_id: `fc_${call.id}`,
          output_index: call.output,
          delta: t.function.arguments,
        });
      }
      return out;
    },
    done(finishReason, usage) {
      const out = closeText() + closeCalls();
      const status = finishReason === 'length' ? 'incomplete' : 'completed';
      const response = responseObject(id, model, created, status, output, responsesUsage(usage));
      return out + ev(`response.${status}`, { response });
    },
    error: (e) =>
      ev('error', { code: e.code ?? e.type ?? 'server_error', message: e.message ?? 'upstream error', param: null }),
  });
}
