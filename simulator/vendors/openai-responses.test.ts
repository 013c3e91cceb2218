import { describe, expect, it } from 'vitest';
import { collectReply } from '../../test/helpers/collect-reply.js';
import { scenarioFrom } from '../../test/helpers/scenario.js';
import { createFakeClock } from '../core/fake-clock.js';
import { createSimulator } from '../simulator.js';

const YAML = `
version: 1
name: responses
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini, text-embedding-3-small], keys: [{ id: main, value: sk-openai }], quotas: [{ metric: requests, limit: 2, per: 1m }, { metric: tokens, limit: 1000, per: 1m }], latency: { completionTokens: 40 } }
  - { id: azure, vendor: azure-openai, models: [gpt-4o-mini, text-embedding-3-small], keys: [{ id: main, value: sk-azure }], quotas: [{ metric: requests, limit: 5, per: 10s }, { metric: tokens, limit: 1000, per: 1m }], latency: { completionTokens: 8 } }
  - { id: groq, vendor: groq, models: [llama-3.1-8b-instant], keys: [{ id: main, value: sk-groq }] }
`;

function setup(faults = '') {
  const clock = createFakeClock(Date.UTC(2026, 0, 1));
  const sim = createSimulator(scenarioFrom(faults ? `${YAML}faults:\n${faults}` : YAML), { seed: 9, clock });
  const post = (url: string, body: unknown, headers: Record<string, string> = { authorization: 'Bearer sk-openai' }) =>
    collectReply(
      sim.handle({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }),
      clock,
    );
  return { sim, clock, post };
}

describe('the Responses API', () => {
  it('answers an incomplete response when max_output_tokens cuts it, and records it as responses', async () => {
    const { post, sim } = setup();
    const res = await post('/openai/v1/responses', {
      model: 'gpt-4o-mini',
      input: 'hi [tl:r-1]',
      max_output_tokens: 16,
    });
    const body = JSON.parse(res.body);
    expect(body).toMatchObject({
      object: 'response',
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      max_output_tokens: 16,
      usage: { output_tokens: 16 },
    });
    expect(body.id).toMatch(/^resp_[0-9a-f]{48}$/);
    expect(body.output[0]).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'output_text' }] });
    expect(sim.ledger.row(0)).toMatchObject({ endpoint: 'responses', correlationId: 'r-1', tokensOut: 16 });
  });

  it('counts against the same quota as chat completions and answers its 429 in the same shape', async () => {
    const { post } = setup();
    await post('/openai/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'a' }] });
    await post('/openai/v1/responses', { model: 'gpt-4o-mini', input: 'b' });
    const third = await post('/openai/v1/responses', { model: 'gpt-4o-mini', input: 'c' });
    expect(third.status).toBe(429);
    expect(JSON.parse(third.body).error.code).toBe('rate_limit_exceeded');
    expect(third.headers['x-ratelimit-remaining-requests']).toBe('0');
  });

  it('numbers every stream event and ends with response.completed carrying usage, without [DONE]', async () => {
    const { post } = setup();
    const res = await post(
      '/azure/openai/v1/responses',
      { model: 'gpt-4o-mini', input: 'hi', stream: true },
      { 'api-key': 'sk-azure' },
    );
    const events = res.body
      .trim()
      .split('\n\n')
      .map((e) => ({ name: /^event: (.+)$/m.exec(e)![1], data: JSON.parse(/^data: (.+)$/m.exec(e)![1]!) }));
    expect(events.map((e) => e.data.sequence_number)).toEqual(events.map((_e, i) => i));
    expect(events.every((e) => e.name === e.data.type)).toBe(true);
    expect(events.filter((e) => e.name === 'response.output_text.delta')).toHaveLength(8);
    expect(events.at(-1)!.data.response.usage.output_tokens).toBe(8);
    expect(res.body).not.toContain('[DONE]');
  });

  it('cuts a stream with a numbered error event', async () => {
    const { post } = setup(
      `  - { id: cut, kind: stream-break, match: { provider: azure }, afterChunks: 2, end: error-event }`,
    );
    const res = await post(
      '/azure/openai/deployments/gpt-4o-mini/responses?api-version=2025-04-01-preview',
      { input: 'hi', stream: true },
      { 'api-key': 'sk-azure' },
    );
    const last = res.body.trim().split('\n\n').at(-1)!;
    expect(last).toMatch(
      /^event: error\ndata: \{"type":"error","code":"server_is_overloaded",.*"sequence_number":6\}$/,
    );
  });

  it('is not served by vendors without it', async () => {
    const { post } = setup();
    const res = await post(
      '/groq/openai/v1/responses',
      { model: 'llama-3.1-8b-instant', input: 'hi' },
      { authorization: 'Bearer sk-groq' },
    );
    expect(res.status).toBe(404);
  });
});

describe('embeddings', () => {
  it('answers base64 float32 vectors as the OpenAI SDK asks, charging input tokens only', async () => {
    const { post, sim } = setup();
    const res = await post('/openai/v1/embeddings', {
      model: 'text-embedding-3-small',
      input: ['abcd efgh', 'ijkl'],
      encoding_format: 'base64',
      dimensions: 8,
    });
    const body = JSON.parse(res.body);
    expect(body.data).toHaveLength(2);
    const floats = new Float32Array(Uint8Array.from(Buffer.from(body.data[1].embedding, 'base64')).buffer);
    expect(floats).toHaveLength(8);
    expect(Math.hypot(...floats)).toBeCloseTo(1, 5);
    expect(body.usage).toEqual({ prompt_tokens: 4, total_tokens: 4 });
    expect(sim.ledger.row(0)).toMatchObject({ endpoint: 'embeddings', tokensIn: 4, tokensOut: 0 });
    expect(sim.quota().openai!.find((q) => q.rule === 'tokens/1m')!.remaining).toBe(996);
  });

  it('refuses more than 2048 inputs and more dimensions than the model has, asking for no giant vectors', async () => {
    const { post } = setup();
    const many = await post('/openai/v1/embeddings', { model: 'text-embedding-3-small', input: Array(2049).fill('a') });
    expect(many.status).toBe(400);
    const wide = await post('/openai/v1/embeddings', { model: 'text-embedding-3-small', input: 'a', dimensions: 1e9 });
    expect(wide.status).toBe(400);
    expect(JSON.parse(wide.body).error.param).toBe('dimensions');
  });

  it('refuses an empty input in OpenAI error shape', async () => {
    const { post } = setup();
    const res = await post('/openai/v1/embeddings', { model: 'text-embedding-3-small', input: '' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error).toMatchObject({ type: 'invalid_request_error', param: 'input' });
  });
});
