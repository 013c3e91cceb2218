import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../core/types.js';
import type { CallContext } from './adapter.js';
import { anthropicAdapter } from './anthropic.js';
import { bedrockAdapter } from './bedrock.js';
import { geminiAdapter } from './gemini.js';

const ctx: CallContext = { baseUrl: 'http://sim', model: 'm', apiKey: 'k', forward: {}, defaultMaxTokens: 100, now: 0 };
const SCHEMA = { type: 'object', properties: { city: { type: 'string' } } };
const conversation: ChatRequest = {
  model: 'auto',
  messages: [
    { role: 'system', content: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBO' } },
      ],
    },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: '{"tempC":3}' },
    { role: 'user', content: 'and so?' },
  ],
  tools: [{ type: 'function', function: { name: 'get_weather', description: 'w', parameters: SCHEMA } }],
  tool_choice: { type: 'function', function: { name: 'get_weather' } },
  response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' } } },
};

describe('tools, images and JSON output to Anthropic', () => {
  it('sends tool_use, tool_result (merged with the next user text), images, tools, tool_choice, output_format and cache_control', async () => {
    const call = await anthropicAdapter.buildRequest(conversation, ctx, false);
    const body = JSON.parse(call.body!);
    expect(body.system).toEqual([{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }]);
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Oslo' } }],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: '{"tempC":3}' },
          { type: 'text', text: 'and so?' },
        ],
      },
    ]);
    expect(body.tools).toEqual([{ name: 'get_weather', description: 'w', input_schema: SCHEMA }]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'get_weather' });
    expect(body.output_format).toEqual({ type: 'json_schema', schema: { type: 'object' } });
    expect(call.headers['anthropic-beta']).toBe('structured-outputs-2025-11-13');
  });

  it('reads tool_use blocks back as tool_calls, plain and streamed', () => {
    const done = anthropicAdapter.parseCompletion(
      JSON.stringify({
        id: 'msg_1',
        content: [
          { type: 'text', text: 'let me see' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 5, output_tokens: 7 },
      }),
      ctx,
    );
    if ('error' in done) throw new Error(done.error);
    const msg = JSON.parse(done.body).choices[0];
    expect(msg.finish_reason).toBe('tool_calls');
    expect(msg.message.tool_calls).toEqual([
      { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    ]);
    const t = anthropicAdapter.streamTranslator(ctx, false);
    const out = [
      { type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 5 } } },
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather' },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '"Oslo"}' } },
    ].map((e) => t.onEvent(JSON.stringify(e), e.type));
    expect(out[1]!.content).toBe(true);
    const deltas = out.flatMap((o) => o.chunks).map((c) => JSON.parse(c).choices[0]?.delta.tool_calls?.[0]);
    expect(deltas[1]).toMatchObject({ index: 0, id: 'toolu_1', function: { name: 'get_weather', arguments: '' } });
    expect(deltas.map((d) => d?.function?.arguments ?? '').join('')).toBe('{"city":"Oslo"}');
  });
});

describe('tools, images and JSON output to Gemini', () => {
  it('sends functionCall, functionResponse named after its call, inlineData, declarations, toolConfig and the JSON schema', async () => {
    const body = JSON.parse((await geminiAdapter.buildRequest(conversation, ctx, false)).body!);
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'look' }, { inlineData: { mimeType: 'image/png', data: 'iVBO' } }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }] },
      {
        role: 'user',
        parts: [{ functionResponse: { name: 'get_weather', response: { tempC: 3 } } }, { text: 'and so?' }],
      },
    ]);
    expect(body.tools).toEqual([
      { functionDeclarations: [{ name: 'get_weather', description: 'w', parametersJsonSchema: SCHEMA }] },
    ]);
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } });
    expect(body.generationConfig).toMatchObject({
      responseMimeType: 'application/json',
      responseJsonSchema: { type: 'object' },
    });
  });

  it('reads functionCall parts back as tool_calls, plain and streamed', () => {
    const answer = {
      candidates: [
        {
          content: { parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }] },
          finishReason: 'STOP',
        },
      ],
      usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2 },
    };
    const done = geminiAdapter.parseCompletion(JSON.stringify(answer), ctx);
    if ('error' in done) throw new Error(done.error);
    const choice = JSON.parse(done.body).choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.tool_calls[0].function).toEqual({ name: 'get_weather', arguments: '{"city":"Oslo"}' });
    const t = geminiAdapter.streamTranslator(ctx, false).onEvent(JSON.stringify(answer), undefined);
    expect(t.content && t.done).toBe(true);
    const chunks = t.chunks.map((c) => JSON.parse(c).choices[0]);
    expect(chunks[1].delta.tool_calls[0]).toMatchObject({ function: { name: 'get_weather' } });
    expect(chunks.at(-1).finish_reason).toBe('tool_calls');
  });

  it('gives every call an id unique across answers, and keeps the id Gemini gives', () => {
    const call = (name: string, id?: string) => ({ functionCall: { name, args: {}, ...(id ? { id } : {}) } });
    const answer = (responseId: string | undefined, parts: unknown[]) =>
      JSON.stringify({
        candidates: [{ content: { parts }, finishReason: 'STOP' }],
        ...(responseId ? { responseId } : {}),
      });
    const ids = (text: string) => {
      const done = geminiAdapter.parseCompletion(text, ctx);
      if ('error' in done) throw new Error(done.error);
      return JSON.parse(done.body).choices[0].message.tool_calls.map((c: { id: string }) => c.id) as string[];
    };
    const streamed = (text: string) =>
      geminiAdapter
        .streamTranslator(ctx, false)
        .onEvent(text, undefined)
        .chunks.flatMap((c) => JSON.parse(c).choices[0].delta.tool_calls ?? [])
        .map((c: { id: string }) => c.id) as string[];
    const all = [
      ...ids(answer('r1', [call('a'), call('b')])),
      ...ids(answer('r2', [call('a')])),
      ...ids(answer(undefined, [call('a')])),
      ...ids(answer(undefined, [call('a')])),
      ...streamed(answer('r3', [call('a'), call('b')])),
      ...streamed(answer(undefined, [call('a')])),
      // Characters Anthropic refuses in an id are dropped from the response id.
      ...ids(answer('r/4+=', [call('a')])),
    ];
    expect(new Set(all).size).toBe(all.length);
    for (const id of all) expect(id).toMatch(/^call_[A-Za-z0-9_-]+$/);
    expect(ids(answer('r5', [call('a', 'fc-from-gemini')]))).toEqual(['fc-from-gemini']);
  });
});

describe('tool results and a user message after them, to Bedrock', () => {
  it('carries the user message inside the last tool result (Converse refuses both in one turn; turns alternate)', async () => {
    const req: ChatRequest = {
      ...conversation,
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
            { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"tempC":3}' },
        { role: 'tool', tool_call_id: 'call_2', content: '{"tempC":19}' },
        { role: 'user', content: [{ type: 'text', text: 'and so?' }] },
      ],
    };
    const body = JSON.parse((await bedrockAdapter.buildRequest(req, ctx, false)).body!);
    expect(body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(body.messages[2].content).toEqual([
      { toolResult: { toolUseId: 'call_1', content: [{ text: '{"tempC":3}' }] } },
      { toolResult: { toolUseId: 'call_2', content: [{ text: '{"tempC":19}' }, { text: 'and so?' }] } },
    ]);
  });
});

describe('a history of tool calls with no tools offered now', () => {
  const req: ChatRequest = {
    model: 'auto',
    messages: [...conversation.messages.slice(2, 4), { role: 'user', content: 'thanks' }],
  };
  it('declares the called tools for Anthropic, with tool_choice none (tool blocks need tools defined)', async () => {
    const body = JSON.parse((await anthropicAdapter.buildRequest(req, ctx, false)).body!);
    expect(body.tools).toEqual([{ name: 'get_weather', input_schema: { type: 'object' } }]);
    expect(body.tool_choice).toEqual({ type: 'none' });
  });
  it('declares them in a toolConfig for Bedrock (Converse refuses tool blocks without one)', async () => {
    const body = JSON.parse((await bedrockAdapter.buildRequest(req, ctx, false)).body!);
    expect(body.toolConfig).toEqual({
      tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }],
    });
  });
});
