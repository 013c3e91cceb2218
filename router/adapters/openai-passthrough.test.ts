import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../core/types.js';
import type { CallContext } from './adapter.js';
import { createOpenAICompatibleAdapter } from './openai-compatible.js';

const ctx: CallContext = {
  baseUrl: 'http://sim/v1',
  model: 'gpt-4o-mini',
  apiKey: 'sk-own',
  forward: {},
  defaultMaxTokens: 777,
  now: 0,
};
const openai = createOpenAICompatibleAdapter('openai');
const mistral = createOpenAICompatibleAdapter('mistral');

// What the adapter sent before it reused the client's text: the parsed request, edited and serialised.
const reserialised = (raw: string, stream: boolean, includeUsage: boolean) => {
  const body = JSON.parse(raw) as Record<string, unknown>;
  body.model = ctx.model;
  body.stream = stream;
  if (includeUsage) body.stream_options = { ...(body.stream_options as object), include_usage: true };
  else if (!stream) delete body.stream_options;
  return body;
};

describe('OpenAI-style adapters reuse the client body', () => {
  const raws = [
    '{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"a \\"model\\": x"}],"max_tokens":64}',
    '{ "stream_options": {"include_usage": false}, "model": "auto", "messages": [{"role":"user","content":"é"}], "stream": true }',
    '{"messages":[{"role":"user","content":"hi"}],"model":"alias","temperature":1.0,"stream_options":null}',
  ];
  for (const raw of raws)
    for (const stream of [false, true])
      it(`sends the same request as the parsed one would (${stream ? 'stream' : 'json'}): ${raw.slice(0, 40)}`, () => {
        const req = JSON.parse(raw) as ChatRequest;
        const viaText = openai.buildRequest(req, { ...ctx, raw }, stream) as { body: string };
        const viaObject = openai.buildRequest(req, ctx, stream) as { body: string };
        expect(JSON.parse(viaText.body)).toEqual(reserialised(raw, stream, stream));
        expect(JSON.parse(viaText.body)).toEqual(JSON.parse(viaObject.body));
        // Untouched members keep their bytes (`1.0` stays `1.0`; serialising would write `1`).
        if (raw.includes('1.0')) expect(viaText.body).toContain('"temperature":1.0');
        const m = mistral.buildRequest(req, { ...ctx, raw }, stream) as { body: string };
        expect(JSON.parse(m.body)).toEqual(reserialised(raw, stream, false));
      });

  it('serialises the parsed request when hints must be dropped or a top-level key is given twice', () => {
    const hinted =
      '{"model":"a","messages":[{"role":"user","content":[{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}]}]}';
    const body = (openai.buildRequest(JSON.parse(hinted), { ...ctx, raw: hinted }, false) as { body: string }).body;
    expect(body).not.toContain('cache_control');
    const twice = '{"model":"a","n":5,"messages":[{"role":"user","content":"x"}],"n":1}';
    const sent = (openai.buildRequest(JSON.parse(twice), { ...ctx, raw: twice }, false) as { body: string }).body;
    // The router judged the last `n` (as JSON.parse does); the provider must see only that one.
    expect(sent.match(/"n":/g)).toHaveLength(1);
    expect(JSON.parse(sent).n).toBe(1);
  });
});

describe('OpenAI-style answers are scanned, not parsed whole', () => {
  it('reads usage and passes the body on as it came', () => {
    const text =
      ' {"id":"x","choices":[{"message":{"content":"\\"usage\\":{}"}}],"usage":{"prompt_tokens":3,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":1}}}';
    expect(openai.parseCompletion(text, ctx)).toEqual({
      body: text.trimStart(),
      usage: { promptTokens: 3, completionTokens: 2, cachedTokens: 1, estimated: false },
    });
  });

  it('estimates usage when none is reported', () => {
    const r = openai.parseCompletion('{"choices":[],"usage":null}', ctx);
    expect(r).toMatchObject({ usage: { estimated: true } });
  });

  it('fails an answer without choices, cut short, or not an object', () => {
    for (const text of [
      '{"error":{"message":"x"}}',
      '{"choices":{}}',
      '{"choices":[{"a":1}',
      'oops',
      '[]',
      '{"choices":[],"usage":{x}}',
    ])
      expect(openai.parseCompletion(text, ctx), text).toHaveProperty('error');
  });
});
