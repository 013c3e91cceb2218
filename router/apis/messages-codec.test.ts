import { describe, expect, it } from 'vitest';
import type { RouteResult } from '../engine/route-result.js';
import { failWith, noCapacity } from '../engine/route-result.js';
import { messagesCodec } from './messages-codec.js';
import { messagesStreamEncoder } from './messages-stream.js';
import { anthropicAdapter } from '../adapters/anthropic.js';

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const events = (text: string) =>
  text
    .split('\n\n')
    .filter(Boolean)
    .map((b) => {
      const [ev, data] = b.split('\n');
      return { event: ev!.slice(7), data: JSON.parse(data!.slice(6)) as Record<string, unknown> };
    });

describe('the Messages codec', () => {
  it('decodes system, images, tool_use and tool_result into the neutral request, keeping cache_control', () => {
    const d = messagesCodec.decode({
      model: 'm',
      max_tokens: 50,
      system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }],
      tools: [{ name: 'get_weather', description: 'w', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any' },
      messages: [
        {
          role: 'user',
          content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAA' } }],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'tu1', name: 'get_weather', input: { city: 'Oslo' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'cold' }] },
      ],
    });
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(d.req.messages).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }] },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAA' } }] },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'tu1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
      },
      { role: 'tool', tool_call_id: 'tu1', content: 'cold' },
    ]);
    expect(d.req.tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description: 'w', parameters: { type: 'object' } } },
    ]);
    expect(d.req.tool_choice).toBe('required');
  });

  it('refuses what Anthropic refuses, in Anthropic shape', () => {
    const d = messagesCodec.decode({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(d.ok).toBe(false);
    if (d.ok) return;
    expect(d.reply.status).toBe(400);
    expect(JSON.parse(d.reply.body)).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
    });
    expect(messagesCodec.preflight!({})!.status).toBe(400);
    expect(messagesCodec.preflight!({ 'anthropic-version': '2023-06-01' })).toBeUndefined();
  });

  it('turns the engine 503 into an overloaded_error with its Retry-After, never an OpenAI body', () => {
    const r = noCapacity({ startedAt: 0, at: 1000 }, [], 5000, 0);
    const out = messagesCodec.encode(r, 'm') as Extract<RouteResult, { kind: 'response' }>;
    expect(out.status).toBe(503);
    expect(out.headers['retry-after']).toBe('5');
    const body = JSON.parse(out.body) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('overloaded_error');
    expect(out.headers['content-length']).toBe(String(Buffer.byteLength(out.body)));
    const nf = messagesCodec.encode(failWith(404, 'model_not_found', 'invalid_request_error', 'no', []), 'm');
    expect(JSON.parse((nf as { body: string }).body).error.type).toBe('not_found_error');
  });

  it('encodes a completion with tool calls as text and tool_use blocks', () => {
    const body = JSON.stringify({
      id: 'chatcmpl-9',
      model: 'gpt-4o-mini',
      choices: [
        {
          message: {
            content: 'checking',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 3 },
    });
    const r = messagesCodec.encode({ kind: 'response', status: 200, headers: {}, body, attempts: [] }, 'm');
    expect(JSON.parse((r as { body: string }).body)).toMatchObject({
      type: 'message',
      content: [
        { type: 'text', text: 'checking' },
        { type: 'tool_use', id: 'call_1', name: 'f', input: { a: 1 } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 10, output_tokens: 3 },
    });
  });

  it('streams text then a tool call as content blocks with input_json_delta, then message_delta and message_stop', () => {
    const enc = messagesStreamEncoder('m');
    let out = enc.push(chunk({ role: 'assistant', content: '' }) + chunk({ content: 'Hi' }));
    out += enc.push(
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }] }) +
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] }) +
        chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }, 'tool_calls'),
    );
    out += enc.push(
      `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 4 } })}\n\ndata: [DONE]\n\n`,
    );
    expect(enc.ended).toBe(true);
    const evs = events(out);
    expect(evs.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(evs[4]!.data).toMatchObject({ index: 1, content_block: { type: 'tool_use', id: 'call_1', name: 'f' } });
    expect(evs[6]!.data).toMatchObject({ delta: { type: 'input_json_delta', partial_json: '1}' } });
    expect(evs[8]!.data).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 4 } });
    expect(messagesCodec.streamEnded.test(out)).toBe(true);
  });

  it('reports the cache writes and reads of an Anthropic answer and reads as Anthropic does, plain and streamed', () => {
    const ctx = {
      baseUrl: 'http://a.test',
      model: 'claude-haiku-4-5',
      apiKey: 'k',
      forward: {},
      defaultMaxTokens: 64,
      now: 0,
    };
    // Anthropic's own split: 12 after the last breakpoint, 2000 written to the cache, 500 read from it.
    const usage = {
      input_tokens: 12,
      cache_creation_input_tokens: 2000,
      cache_read_input_tokens: 500,
      output_tokens: 5,
    };
    const want = {
      input_tokens: 12,
      cache_creation_input_tokens: 2000,
      cache_read_input_tokens: 500,
      output_tokens: 5,
    };
    const done = anthropicAdapter.parseCompletion(
      JSON.stringify({
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: 'hi' }],
        stop_reason: 'end_turn',
        usage,
      }),
      ctx,
    );
    if ('error' in done) throw new Error(done.error);
    const r = messagesCodec.encode({ kind: 'response', status: 200, headers: {}, body: done.body, attempts: [] }, 'm');
    expect(JSON.parse((r as { body: string }).body).usage).toEqual(want);
    // Streamed: Anthropic's events through the adapter to OpenAI chunks, then the Messages encoder.
    const t = anthropicAdapter.streamTranslator(ctx, true);
    const chunks = [
      { type: 'message_start', message: { id: 'msg_1', usage: { ...usage, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } },
      { type: 'message_stop' },
    ].flatMap((e) => t.onEvent(JSON.stringify(e), e.type).chunks);
    const enc = messagesStreamEncoder('m');
    const out = enc.push(chunks.map((c) => `data: ${c}\n\n`).join('') + 'data: [DONE]\n\n');
    const final = events(out).find((e) => e.event === 'message_delta')!;
    expect(final.data.usage).toEqual(want);
  });

  it('turns an error frame into an Anthropic error event', () => {
    const enc = messagesStreamEncoder('m');
    const out = enc.push(
      chunk({ content: 'a' }) +
        `data: ${JSON.stringify({ error: { message: 'deadline', type: 'timeout', code: 'deadline_exceeded' } })}\n\n`,
    );
    const last = events(out).at(-1)!;
    expect(last).toEqual({
      event: 'error',
      data: { type: 'error', error: { type: 'timeout_error', message: 'deadline' } },
    });
    expect(enc.ended).toBe(true);
  });
});
