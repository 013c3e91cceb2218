import { describe, expect, it } from 'vitest';
import { responsesCodec } from './responses-codec.js';
import { responsesStreamEncoder } from './responses-stream.js';

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', model: 'm', created: 5, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

describe('the Responses codec', () => {
  it('decodes instructions, items, function calls and outputs, tools, text.format and prompt_cache_key', () => {
    const d = responsesCodec.decode({
      model: 'm',
      instructions: 'be brief',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'hi' },
            { type: 'input_image', image_url: 'https://x/i.png' },
          ],
        },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"a":1}' },
        { type: 'function_call_output', call_id: 'c1', output: 'done' },
      ],
      tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: true }],
      tool_choice: { type: 'function', name: 'f' },
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
      prompt_cache_key: 'conv-1',
      max_output_tokens: 100,
    });
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(d.req).toMatchObject({
      max_tokens: 100,
      prompt_cache_key: 'conv-1',
      tool_choice: { type: 'function', function: { name: 'f' } },
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
      messages: [
        { role: 'system', content: 'be brief' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'image_url', image_url: { url: 'https://x/i.png' } },
          ],
        },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', function: { name: 'f', arguments: '{"a":1}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'done' },
      ],
    });
  });

  it('refuses previous_response_id (the router keeps no state) with an OpenAI-shaped 400', () => {
    const d = responsesCodec.decode({ model: 'm', input: 'x', previous_response_id: 'resp_1' });
    expect(d.ok).toBe(false);
    if (!d.ok) expect(JSON.parse(d.reply.body).error.param).toBe('previous_response_id');
  });

  it('encodes tool calls as function_call items', () => {
    const body = JSON.stringify({
      id: 'chatcmpl-2',
      model: 'm',
      choices: [
        {
          message: { content: null, tool_calls: [{ id: 'call_1', function: { name: 'f', arguments: '{}' } }] },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 2 },
    });
    const r = responsesCodec.encode({ kind: 'response', status: 200, headers: {}, body, attempts: [] }, 'm');
    const j = JSON.parse((r as { body: string }).body);
    expect(j.output).toEqual([
      { id: 'fc_call_1', type: 'function_call', status: 'completed', arguments: '{}', call_id: 'call_1', name: 'f' },
    ]);
    expect(j.usage).toMatchObject({ input_tokens: 3, output_tokens: 2, total_tokens: 5 });
  });

  it('streams typed events with increasing sequence numbers, function-call argument deltas included', () => {
    const enc = responsesStreamEncoder('m');
    const out =
      enc.push(chunk({ role: 'assistant', content: 'Hi' })) +
      enc.push(
        chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'f', arguments: '{"a"' } }] }) +
          chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }, 'tool_calls') +
          'data: [DONE]\n\n',
      );
    const evs = out
      .split('\n\n')
      .filter(Boolean)
      .map(
        (b) =>
          JSON.parse(b.split('\n')[1]!.slice(6)) as {
            type: string;
            sequence_number: number;
            response?: { output: unknown[] };
          },
      );
    expect(evs.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(evs.map((e) => e.sequence_number)).toEqual(evs.map((_, i) => i));
    expect(evs.at(-1)!.response!.output).toMatchObject([
      { type: 'message', content: [{ text: 'Hi' }] },
      { type: 'function_call', call_id: 'call_1', arguments: '{"a":1}' },
    ]);
    expect(responsesCodec.streamEnded.test(out)).toBe(true);
  });
});
