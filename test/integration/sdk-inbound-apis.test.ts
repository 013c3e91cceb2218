import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startApiRig, type ApiRig } from '../helpers/api-router.js';

let rig: ApiRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const limited = (provider: string) =>
  `  - { id: limited, kind: status, match: { provider: ${provider} }, status: 429, hint: { form: seconds, after: 30s } }`;
const openai = (r: ApiRig) => new OpenAI({ baseURL: `${r.server.origin}/v1`, apiKey: 'unused', maxRetries: 0 });
const anthropic = (r: ApiRig) => new Anthropic({ baseURL: r.server.origin, apiKey: 'unused', maxRetries: 0 });
const path = (r: ApiRig, cid: string) => r.rows(cid).map((x) => [x.provider, x.status]);

describe('the official SDKs, unchanged, against the router, failing over across vendors', () => {
  it('openai chat.completions: Anthropic-backed provider 429s, OpenAI serves', async () => {
    rig = await startApiRig(limited('anthropic'), 'anthropic');
    const c = await openai(rig).chat.completions.create({
      model: 'smart',
      messages: [{ role: 'user', content: 'hello [tl:cc1]' }],
    });
    expect(c.choices[0]!.message.content!.length).toBeGreaterThan(0);
    expect(path(rig, 'cc1')).toEqual([
      ['anthropic', 429],
      ['openai', 200],
    ]);
  });

  it('openai responses.create: Anthropic 429s, OpenAI serves; text, usage and a stream of typed events', async () => {
    rig = await startApiRig(limited('anthropic'), 'anthropic');
    const client = openai(rig);
    const r = await client.responses.create({ model: 'smart', input: 'hello [tl:rs1]', max_output_tokens: 64 });
    expect(r.object).toBe('response');
    expect(r.status).toBe('completed');
    expect(r.output_text.split(' ').filter(Boolean)).toHaveLength(5);
    expect(r.usage!.output_tokens).toBe(5);
    expect(path(rig, 'rs1')).toEqual([
      ['anthropic', 429],
      ['openai', 200],
    ]);
    const stream = await client.responses.create({ model: 'smart', input: 'hello [tl:rs2]', stream: true });
    const types: string[] = [];
    let text = '';
    let final: OpenAI.Responses.Response | undefined;
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === 'response.output_text.delta') text += ev.delta;
      if (ev.type === 'response.completed') final = ev.response;
    }
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.output_text.done');
    expect(final!.output_text ?? text).toBe(text);
    expect(final!.usage!.output_tokens).toBe(5);
  });

  it('openai responses.create served by Anthropic after OpenAI 429s (translated both ways)', async () => {
    rig = await startApiRig(limited('openai'), 'openai');
    const r = await openai(rig).responses.create({
      model: 'smart',
      instructions: 'be brief',
      input: [{ role: 'user', content: 'hello [tl:rs3]' }],
    });
    expect(r.output_text.length).toBeGreaterThan(0);
    expect(path(rig, 'rs3')).toEqual([
      ['openai', 429],
      ['anthropic', 200],
    ]);
  });

  it('openai embeddings: OpenAI 429s, Mistral serves the vectors', async () => {
    rig = await startApiRig(limited('openai'), 'openai');
    const e = await openai(rig).embeddings.create({ model: 'embed', input: ['one [tl:em1]', 'two'] });
    expect(e.data).toHaveLength(2);
    expect(e.data[0]!.embedding.length).toBe(1024);
    expect(path(rig, 'em1')).toEqual([
      ['openai', 429],
      ['mistral', 200],
    ]);
  });

  it('anthropic messages.create: OpenAI-backed provider 429s, Anthropic serves', async () => {
    rig = await startApiRig(limited('openai'), 'openai');
    const m = await anthropic(rig).messages.create({
      model: 'smart',
      max_tokens: 64,
      system: 'be brief',
      messages: [{ role: 'user', content: 'hello [tl:am1]' }],
    });
    expect(m.type).toBe('message');
    expect(m.content[0]).toMatchObject({ type: 'text' });
    expect(m.stop_reason).toBe('end_turn');
    expect(m.usage.output_tokens).toBe(5);
    expect(path(rig, 'am1')).toEqual([
      ['openai', 429],
      ['anthropic', 200],
    ]);
  });

  it('anthropic messages.create served by OpenAI after Anthropic 429s', async () => {
    rig = await startApiRig(limited('anthropic'), 'anthropic');
    const m = await anthropic(rig).messages.create({
      model: 'smart',
      max_tokens: 64,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello [tl:am2]' }] }],
    });
    expect(m.content[0]!.type === 'text' && m.content[0].text.length).toBeGreaterThan(0);
    expect(m.usage.output_tokens).toBe(5);
    expect(path(rig, 'am2')).toEqual([
      ['anthropic', 429],
      ['openai', 200],
    ]);
  });

  it('anthropic messages.stream: Anthropic 429s, OpenAI serves the stream as Messages events', async () => {
    rig = await startApiRig(limited('anthropic'), 'anthropic');
    const stream = anthropic(rig).messages.stream({
      model: 'smart',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hello [tl:as1]' }],
    });
    let text = '';
    stream.on('text', (t) => (text += t));
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'text', text });
    expect(text.split(' ').filter(Boolean)).toHaveLength(5);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage.output_tokens).toBe(5);
    expect(path(rig, 'as1')).toEqual([
      ['anthropic', 429],
      ['openai', 200],
    ]);
  });

  it('no capacity anywhere: 503 + Retry-After in each API own shape', async () => {
    rig = await startApiRig(`${limited('anthropic')}\n${limited('openai')}`.replace('id: limited', 'id: l1'));
    const a = await anthropic(rig)
      .messages.create({ model: 'smart', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(a).toBeInstanceOf(Anthropic.APIError);
    const ae = a as InstanceType<typeof Anthropic.APIError>;
    expect(ae.status).toBe(503);
    expect(Number(ae.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((ae.error as { type: string }).type).toBe('error');
    expect((ae.error as { error: { type: string } }).error.type).toBe('overloaded_error');
    const o = await openai(rig)
      .responses.create({ model: 'smart', input: 'hi' })
      .catch((e: unknown) => e);
    expect(o).toBeInstanceOf(OpenAI.APIError);
    const oe = o as InstanceType<typeof OpenAI.APIError>;
    expect(oe.status).toBe(503);
    expect(Number(oe.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(oe.type).toBe('service_unavailable');
  });

  it('speaks Anthropic errors on /v1/messages before routing too: missing anthropic-version, bad JSON', async () => {
    rig = await startApiRig();
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${rig!.server.origin}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    const body = JSON.stringify({ model: 'smart', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] });
    const noVersion = await post({}, body);
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
    });
    const badJson = await post({ 'anthropic-version': '2023-06-01' }, '{');
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as { type: string }).type).toBe('error');
    const ok = await post({ 'anthropic-version': '2023-06-01' }, body);
    expect(((await ok.json()) as { type: string }).type).toBe('message');
  });
});
