import { describe, expect, it } from 'vitest';
import type { CallContext } from './adapter.js';
import { anthropicAdapter } from './anthropic.js';
import { geminiAdapter } from './gemini.js';
import { createOpenAICompatibleAdapter } from './openai-compatible.js';

const ctx: CallContext = {
  baseUrl: 'http://sim/x',
  model: 'm-1',
  apiKey: 'sk-own',
  forward: { 'x-throttlelab-correlation-id': 'c1' },
  defaultMaxTokens: 777,
  now: Date.UTC(2026, 0, 1),
};
const req = {
  model: 'auto',
  messages: [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    { role: 'assistant', content: 'yo' },
    { role: 'user', content: 'again' },
  ],
};

describe('anthropic adapter', () => {
  it('moves system messages to `system`, fills the required max_tokens, sends its own key', async () => {
    const call = await anthropicAdapter.buildRequest(req, ctx, false);
    expect(call.url).toBe('http://sim/x/v1/messages');
    expect(call.headers).toMatchObject({
      'x-api-key': 'sk-own',
      'anthropic-version': '2023-06-01',
      'x-throttlelab-correlation-id': 'c1',
    });
    expect(call.headers.authorization).toBeUndefined();
    expect(JSON.parse(call.body!)).toEqual({
      model: 'm-1',
      max_tokens: 777,
      stream: false,
      system: 'be brief',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'yo' },
        { role: 'user', content: 'again' },
      ],
    });
  });

  it('translates an answer to chat.completion with usage', () => {
    const r = anthropicAdapter.parseCompletion(
      '{"id":"msg_1","content":[{"type":"text","text":"Hello"}],"stop_reason":"max_tokens","usage":{"input_tokens":5,"output_tokens":1}}',
      ctx,
    );
    expect('body' in r && JSON.parse(r.body)).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { content: 'Hello' }, finish_reason: 'length' }],
      usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
    });
  });

  it('translates the event stream, treating ping as no content and an error event as an error', () => {
    const t = anthropicAdapter.streamTranslator(ctx, true);
    expect(
      t.onEvent('{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":4}}}', 'message_start'),
    ).toMatchObject({ content: false, chunks: [expect.stringContaining('"role":"assistant"')] });
    expect(t.onEvent('{"type": "ping"}', 'ping')).toEqual({ chunks: [], content: false });
    expect(
      t.onEvent(
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}',
        'content_block_delta',
      ),
    ).toMatchObject({ content: true, chunks: [expect.stringContaining('"content":"Hi"')] });
    expect(
      t.onEvent('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', 'error').error,
    ).toEqual({ message: 'Overloaded', type: 'overloaded_error', code: 'overloaded_error' });
    const done = anthropicAdapter.streamTranslator(ctx, true);
    done.onEvent('{"type":"message_start","message":{"id":"m","usage":{"input_tokens":4}}}', undefined);
    done.onEvent('{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}', undefined);
    expect(done.onEvent('{"type":"message_stop"}', undefined)).toMatchObject({
      done: true,
      usage: { promptTokens: 4, completionTokens: 7 },
      chunks: [expect.stringContaining('"usage":{"prompt_tokens":4,"completion_tokens":7')],
    });
    expect(done.onEnd().error).toBeUndefined();
  });

  it('reports a stream that ends without message_stop as truncated', () => {
    const t = anthropicAdapter.streamTranslator(ctx, false);
    expect(t.onEnd().error?.code).toBe('stream_truncated');
  });
});

describe('gemini adapter', () => {
  it('sends contents with model turns, systemInstruction and the key in x-goog-api-key', async () => {
    const call = await geminiAdapter.buildRequest({ ...req, max_tokens: 50 }, ctx, true);
    expect(call.url).toBe('http://sim/x/v1beta/models/m-1:streamGenerateContent?alt=sse');
    expect(call.headers['x-goog-api-key']).toBe('sk-own');
    expect(JSON.parse(call.body!)).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'hi' }] },
        { role: 'model', parts: [{ text: 'yo' }] },
        { role: 'user', parts: [{ text: 'again' }] },
      ],
      generationConfig: { maxOutputTokens: 50 },
      systemInstruction: { parts: [{ text: 'be brief' }] },
    });
  });

  it('completes a stream only on a finish reason (no [DONE] in Gemini)', () => {
    const t = geminiAdapter.streamTranslator(ctx, false);
    expect(
      t.onEvent(
        '{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}],"usageMetadata":{"promptTokenCount":3}}',
        undefined,
      ),
    ).toMatchObject({ content: true });
    expect(t.onEnd().error?.code).toBe('stream_truncated');
    const ok = geminiAdapter.streamTranslator(ctx, true);
    ok.onEvent('{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}]}', undefined);
    expect(
      ok.onEvent(
        '{"candidates":[{"content":{"parts":[{"text":""}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1}}',
        undefined,
      ),
    ).toMatchObject({ done: true, usage: { promptTokens: 3, completionTokens: 1 } });
    expect(ok.onEnd().error).toBeUndefined();
  });
});

describe('openai-compatible adapters', () => {
  it('asks for stream usage and drops the usage chunk when the client did not', async () => {
    const a = createOpenAICompatibleAdapter('openai');
    expect(JSON.parse((await a.buildRequest(req, ctx, true)).body!)).toMatchObject({
      model: 'm-1',
      stream: true,
      stream_options: { include_usage: true },
    });
    const t = a.streamTranslator(ctx, false);
    const usage = t.onEvent('{"choices":[],"usage":{"prompt_tokens":2,"completion_tokens":3}}', undefined);
    expect(usage).toMatchObject({ chunks: [], usage: { promptTokens: 2, completionTokens: 3, estimated: false } });
    expect(t.onEvent('[DONE]', undefined)).toMatchObject({ done: true });
  });

  it('does not send stream_options to Mistral, which rejects unknown fields', async () => {
    expect(
      JSON.parse((await createOpenAICompatibleAdapter('mistral').buildRequest(req, ctx, true)).body!).stream_options,
    ).toBeUndefined();
  });

  it('uses the deployment path, api-version and api-key for Azure', async () => {
    const call = await createOpenAICompatibleAdapter('azure-openai').buildRequest(
      req,
      { ...ctx, apiVersion: '2024-10-21' },
      false,
    );
    expect(call.url).toBe('http://sim/x/openai/deployments/m-1/chat/completions?api-version=2024-10-21');
    expect(call.headers['api-key']).toBe('sk-own');
    expect(call.headers.authorization).toBeUndefined();
  });

  it('raises an in-stream error object as a stream error', () => {
    const t = createOpenAICompatibleAdapter('openai').streamTranslator(ctx, false);
    expect(
      t.onEvent(
        '{"error":{"message":"The server is overloaded or not ready yet.","type":"service_unavailable_error","code":"server_is_overloaded"}}',
        undefined,
      ).error?.code,
    ).toBe('server_is_overloaded');
  });
});
