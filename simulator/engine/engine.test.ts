import { describe, expect, it } from 'vitest';
import { collectReply } from '../../test/helpers/collect-reply.js';
import { ALL_VENDORS_YAML, chatCall, scenarioFrom } from '../../test/helpers/scenario.js';
import { createFakeClock } from '../core/fake-clock.js';
import { createSimulator } from '../simulator.js';
import type { VendorId } from '../vendors/types.js';

const VENDORS: VendorId[] = [
  'openai',
  'azure-openai',
  'anthropic',
  'gemini',
  'groq',
  'mistral',
  'deepseek',
  'ratelimit-draft',
];

function setup(yaml = ALL_VENDORS_YAML, seed = 7) {
  const clock = createFakeClock(Date.UTC(2026, 0, 1, 0, 0, 0));
  const sim = createSimulator(scenarioFrom(yaml), { seed, clock });
  const send = (call: ReturnType<typeof chatCall>) => sim.handle(call);
  const run = async (call: ReturnType<typeof chatCall>, maxMs?: number) => collectReply(sim.handle(call), clock, maxMs);
  return { clock, sim, send, run };
}

/** Extracts the generated text and usage from any vendor's body or stream. */
function readAnswer(
  vendor: VendorId,
  body: string,
  stream: boolean,
): { text: string; input: number; output: number; total: number; terminated: boolean } {
  if (!stream) {
    const j = JSON.parse(body);
    if (vendor === 'anthropic')
      return {
        text: j.content[0].text,
        input: j.usage.input_tokens,
        output: j.usage.output_tokens,
        total: j.usage.input_tokens + j.usage.output_tokens,
        terminated: true,
      };
    if (vendor === 'gemini') {
      const u = j.usageMetadata;
      return {
        text: j.candidates[0].content.parts[0].text,
        input: u.promptTokenCount,
        output: u.candidatesTokenCount,
        total: u.totalTokenCount,
        terminated: true,
      };
    }
    return {
      text: j.choices[0].message.content,
      input: j.usage.prompt_tokens,
      output: j.usage.completion_tokens,
      total: j.usage.total_tokens,
      terminated: true,
    };
  }
  const datas = body
    .split(/\r?\n\r?\n/)
    .map((e) =>
      e
        .split(/\r?\n/)
        .find((l) => l.startsWith('data: '))
        ?.slice(6),
    )
    .filter((d): d is string => d !== undefined);
  let text = '';
  let input = 0;
  let output = 0;
  let total = 0;
  let terminated = false;
  for (const d of datas) {
    if (d === '[DONE]') {
      terminated = true;
      continue;
    }
    const j = JSON.parse(d);
    if (vendor === 'anthropic') {
      if (j.type === 'message_start') input = j.message.usage.input_tokens;
      if (j.type === 'content_block_delta') text += j.delta.text;
      if (j.type === 'message_delta') output = j.usage.output_tokens;
      if (j.type === 'message_stop') terminated = true;
      total = input + output;
    } else if (vendor === 'gemini') {
      text += j.candidates[0].content.parts[0].text;
      if (j.candidates[0].finishReason) {
        terminated = true;
        input = j.usageMetadata.promptTokenCount;
        output = j.usageMetadata.candidatesTokenCount;
        total = j.usageMetadata.totalTokenCount;
      }
    } else {
      if (j.choices[0]?.delta?.content) text += j.choices[0].delta.content;
      const usage = j.usage ?? j.x_groq?.usage;
      if (usage) [input, output, total] = [usage.prompt_tokens, usage.completion_tokens, usage.total_tokens];
    }
  }
  return { text, input, output, total, terminated };
}

describe('Engine', () => {
  describe.each(VENDORS)('%s', (vendor) => {
    it('answers a chat request with consistent usage matching the ledger', async () => {
      const { run, sim } = setup();
      const r = await run(chatCall(vendor, { prompt: 'hello there [tl:c-1]' }));
      expect(r.status).toBe(200);
      expect(r.headers['content-length']).toBe(String(Buffer.byteLength(r.body)));
      const a = readAnswer(vendor, r.body, false);
      expect(a.text.split(' ').length).toBe(a.output);
      expect(a.total).toBe(a.input + a.output);
      const row = sim.ledger.row(0)!;
      expect(row).toMatchObject({
        provider: vendor,
        key: 'main',
        status: 200,
        tokensIn: a.input,
        tokensOut: a.output,
        correlationId: 'c-1',
        end: 'complete',
        stream: false,
      });
    });

    it('streams in the vendor format with a terminator and the same usage', async () => {
      const { run, sim } = setup();
      const r = await run(chatCall(vendor, { stream: true }));
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toMatch(/event-stream/);
      const a = readAnswer(vendor, r.body, true);
      expect(a.terminated).toBe(vendor !== 'gemini' || a.output > 0);
      expect(a.text.split(' ').length).toBe(a.output);
      expect(a.total).toBe(a.input + a.output);
      expect(sim.ledger.row(0)).toMatchObject({ stream: true, end: 'complete', tokensOut: a.output });
    });

    it('refuses a wrong key, recording whose key it was but never the key', async () => {
      const { run, sim } = setup();
      const other = vendor === 'openai' ? 'anthropic' : 'openai';
      const r = await run(chatCall(vendor, { key: `sk-${other}` }));
      expect(r.status).toBe(vendor === 'gemini' ? 400 : 401);
      expect(() => JSON.parse(r.body)).not.toThrow();
      expect(sim.ledger.row(0)!.key).toBe(`foreign:${other}/main`);
      await run(chatCall(vendor, { key: 'sk-nobody' }));
      expect(sim.ledger.row(1)!.key).toBe('unknown');
      expect(JSON.stringify([...sim.ledger.rowsIterator()])).not.toMatch(/sk-(openai|anthropic|nobody)/);
    });

    it('answers bad JSON with a 4xx in the vendor shape', async () => {
      const { run } = setup();
      const r = await run(chatCall(vendor, { body: '{"model": ' }));
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(r.body.length).toBeGreaterThan(10);
      expect(() => JSON.parse(r.body)).not.toThrow();
    });

    it('answers an unknown model with a 4xx and records the model asked for', async () => {
      const { run, sim } = setup();
      const r = await run(chatCall(vendor, { model: 'no-such-model' }));
      expect([400, 404]).toContain(r.status);
      expect(sim.ledger.row(0)!.model).toBe('no-such-model');
    });

    it('answers 429 in the vendor shape once the quota is spent, counting requests in flight', async () => {
      const { send, clock } = setup();
      const replies = [1, 2, 3, 4].map(() => send(chatCall(vendor)));
      expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 429]);
      const r = await collectReply(replies[3]!, clock);
      expect(r.status).toBe(429);
      expect(r.body).toMatch(/rate|quota|Rate|RESOURCE_EXHAUSTED/);
    });
  });

  it('requires max_tokens for anthropic and anthropic-version', async () => {
    const { run } = setup();
    const noMax = await run(
      chatCall('anthropic', {
        body: JSON.stringify({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'x' }] }),
      }),
    );
    expect(noMax.status).toBe(400);
    expect(JSON.parse(noMax.body).error).toEqual({
      type: 'invalid_request_error',
      message: 'max_tokens: Field required',
    });
    const call = chatCall('anthropic');
    delete call.headers['anthropic-version'];
    expect((await run(call)).status).toBe(400);
  });

  it('records the SDK retry count and a correlation header', async () => {
    const { run, sim } = setup();
    const call = chatCall('openai');
    call.headers['x-stainless-retry-count'] = '2';
    call.headers['x-throttlelab-correlation-id'] = 'req-77';
    await run(call);
    expect(sim.ledger.row(0)).toMatchObject({ sdkRetryCount: 2, correlationId: 'req-77' });
  });

  it('replays the same answers from the same seed and differs with another', async () => {
    const a = await setup(ALL_VENDORS_YAML, 11).run(chatCall('openai'));
    const b = await setup(ALL_VENDORS_YAML, 11).run(chatCall('openai'));
    const c = await setup(ALL_VENDORS_YAML, 12).run(chatCall('openai'));
    expect(b.body).toBe(a.body);
    expect(b.headers).toEqual(a.headers);
    expect(c.body).not.toBe(a.body);
  });

  it('serves GET models for the OpenAI-compatible vendors', async () => {
    const { run } = setup();
    const r = await run({
      method: 'GET',
      url: '/openai/v1/models',
      headers: { authorization: 'Bearer sk-openai' },
      body: '',
    });
    expect(JSON.parse(r.body)).toMatchObject({ object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model' }] });
  });

  it('answers an unknown provider prefix with 404 and no ledger row', async () => {
    const { run, sim } = setup();
    const r = await run({ method: 'POST', url: '/nope/v1/chat/completions', headers: {}, body: '{}' });
    expect(r.status).toBe(404);
    expect(sim.ledger.size).toBe(0);
  });
});
