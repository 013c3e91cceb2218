import type { StreamEncoder } from './api-codec.js';
import { readChatFrames, type ChatUsage } from './chat-frames.js';
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
  let ended = false;
  let id = 'resp_router';
  let model = requestedModel;
  let created = 0;
  let started = false;
  let text: { output: number; text: string } | undefined;
  const calls = new Map<number, Call>();
  const output: unknown[] = [];
  let finish = 'stop';
  let usage: ChatUsage | undefined;
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
  const fail = (code: string | null | undefined, message: string) => {
    ended = true;
    return ev('error', { code: code ?? 'server_error', message, param: null });
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
          out += fail(f.error.code ?? f.error.type, f.error.message ?? 'upstream error');
          continue;
        }
        if (f.kind === 'done') {
          out += closeText() + closeCalls();
          const status = finish === 'length' ? 'incomplete' : 'completed';
          const response = responseObject(id, model, created, status, output, responsesUsage(usage));
          out += ev(`response.${status}`, { response });
          ended = true;
          continue;
        }
        const c = f.chunk;
        if (!started) {
          started = true;
          id = responseId(c.id);
          model = c.model ?? requestedModel;
          created = c.created ?? 0;
          const response = responseObject(id, model, created, 'in_progress', [], null);
          out += ev('response.created', { response }) + ev('response.in_progress', { response });
        }
        if (c.usage) usage = c.usage;
        const choice = c.choices?.[0];
        const d = choice?.delta;
        if (typeof d?.content === 'string' && d.content !== '') {
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
          text.text += d.content;
          out += ev('response.output_text.delta', {
            item_id: msgId(),
            output_index: text.output,
            content_index: 0,
            delta: d.content,
            logprobs: [],
          });
        }
        for (const t of d?.tool_calls ?? []) {
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
        }
        if (choice?.finish_reason) finish = choice.finish_reason;
      }
      return out;
    },
  };
}
