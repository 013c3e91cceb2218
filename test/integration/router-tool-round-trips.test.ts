import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Router } from '../../router/router.js';
import { startRouterServer, type RouterServer } from '../../router/server/http-server.js';
import { routerFor } from '../helpers/router-fixture.js';
import { serve, type Served } from '../helpers/serve.js';

// Every vendor the router translates tools for; each answers a request that offers tools with a
// seeded call (toolCallRate 1) and checks tool-result turns as the real vendor does.
const VENDORS = [
  ['openai', 'openai', 'gpt-4o-mini'],
  ['anthropic', 'anthropic', 'claude-haiku-4-5'],
  ['gemini', 'gemini', 'gemini-2.5-flash'],
  ['vertex', 'vertex-ai', 'gemini-2.5-flash'],
  ['mistral', 'mistral', 'mistral-small-latest'],
  ['bedrock', 'bedrock', 'anthropic.claude-3-5-haiku-20241022-v1:0'],
] as const;

const YAML = `
version: 1
name: tool-round-trips
providers:
${VENDORS.map(
  ([id, vendor, model]) =>
    `  - { id: ${id}, vendor: ${vendor}, models: ["${model}"], keys: [{ id: main, value: sk-${id}-sim }], quotas: [{ metric: requests, limit: 100000, per: 1m }], latency: { completionTokens: 3 }, toolCallRate: 1 }`,
).join('\n')}
`;

const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer' } },
  required: ['city', 'days'],
};

let served: Served;
let router: Router;
let server: RouterServer;
let openai: OpenAI;
let anthropic: Anthropic;
beforeAll(async () => {
  served = await serve(YAML);
  router = routerFor(served);
  server = await startRouterServer(router, { port: 0 });
  openai = new OpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'unused', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: server.origin, apiKey: 'unused', maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
  await router.close();
  await served.close();
});

/** The vendor a request reached, from the simulator's ledger. */
const lastProvider = () => [...served.sim.ledger.rowsIterator()].at(-1)!;
const checkArgs = (args: Record<string, unknown>) => {
  expect(typeof args.city).toBe('string');
  expect(Number.isInteger(args.days)).toBe(true);
};

describe.each(VENDORS)('tool round trips through the router to %s', (id, _vendor, model) => {
  const target = `${id}/${model}`;

  it('chat.completions: tool_calls out, the tool result back in, text after (plain and streamed)', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: SCHEMA } }];
    const user = { role: 'user' as const, content: 'weather in Oslo?' };
    const first = await openai.chat.completions.create({ model: target, messages: [user], tools });
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.function.name).toBe('get_weather');
    checkArgs(JSON.parse(call.function.arguments));
    expect(lastProvider()).toMatchObject({ provider: id, status: 200 });

    const streamed = await openai.chat.completions.create({ model: target, messages: [user], tools, stream: true });
    let name = '';
    let args = '';
    let finish = '';
    for await (const chunk of streamed) {
      const tc = chunk.choices[0]?.delta.tool_calls?.[0];
      name += tc?.function?.name ?? '';
      args += tc?.function?.arguments ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect([name, finish]).toEqual(['get_weather', 'tool_calls']);
    checkArgs(JSON.parse(args));

    const second = await openai.chat.completions.create({
      model: target,
      tools,
      messages: [user, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '{"temp":3}' }],
    });
    expect(lastProvider()).toMatchObject({ provider: id, status: 200 });
    expect(second.choices[0]!.finish_reason).toBe('stop');
    expect(second.choices[0]!.message.content!.length).toBeGreaterThan(0);
  });

  it('responses: function_call out, function_call_output back in, text after (plain and streamed)', async () => {
    const tools = [{ type: 'function' as const, name: 'get_weather', parameters: SCHEMA, strict: false }];
    const first = await openai.responses.create({ model: target, input: 'weather in Oslo?', tools });
    const call = first.output.find((o) => o.type === 'function_call')!;
    expect(call.name).toBe('get_weather');
    checkArgs(JSON.parse(call.arguments));

    const stream = await openai.responses.create({ model: target, input: 'weather?', tools, stream: true });
    let args = '';
    for await (const ev of stream) if (ev.type === 'response.function_call_arguments.delta') args += ev.delta;
    checkArgs(JSON.parse(args));

    const second = await openai.responses.create({
      model: target,
      tools,
      input: [
        { role: 'user', content: 'weather in Oslo?' },
        { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
        { type: 'function_call_output', call_id: call.call_id, output: '{"temp":3}' },
      ],
    });
    expect(lastProvider()).toMatchObject({ provider: id, status: 200 });
    expect(second.output.some((o) => o.type === 'function_call')).toBe(false);
    expect(second.output_text.length).toBeGreaterThan(0);
  });

  it('messages: tool_use out, tool_result back in, text after (plain and streamed)', async () => {
    const tools = [{ name: 'get_weather', input_schema: SCHEMA as Anthropic.Tool.InputSchema }];
    const user = { role: 'user' as const, content: 'weather in Oslo?' };
    const first = await anthropic.messages.create({ model: target, max_tokens: 64, messages: [user], tools });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((b) => b.type === 'tool_use')!;
    expect(use.name).toBe('get_weather');
    checkArgs(use.input as Record<string, unknown>);

    const final = await anthropic.messages
      .stream({ model: target, max_tokens: 64, messages: [user], tools })
      .finalMessage();
    const streamedUse = final.content.find((b) => b.type === 'tool_use')!;
    expect(streamedUse.name).toBe('get_weather');
    checkArgs(streamedUse.input as Record<string, unknown>);

    const second = await anthropic.messages.create({
      model: target,
      max_tokens: 64,
      tools,
      messages: [
        user,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '{"temp":3}' }] },
      ],
    });
    expect(lastProvider()).toMatchObject({ provider: id, status: 200 });
    expect(second.stop_reason).toBe('end_turn');
  });
});

describe('tool-result turns the vendor would reject', () => {
  it('a tool_result without its tool_use: the simulated Anthropic rejects it, the client gets 400 in Anthropic shape', async () => {
    const e = await anthropic.messages
      .create({
        model: 'anthropic/claude-haiku-4-5',
        max_tokens: 16,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_missing', content: 'x' }] },
        ],
      })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Anthropic.BadRequestError);
    const body = (e as InstanceType<typeof Anthropic.APIError>).error as { type: string; error: { message: string } };
    expect(body.type).toBe('error');
    expect(body.error.message).toMatch(/tool_result/);
    expect(lastProvider()).toMatchObject({ provider: 'anthropic', status: 400 });
  });
});

describe('an agent whose tool turns Gemini served, continued on Anthropic (issue 24)', () => {
  it('the Anthropic SDK sends the Gemini-served history on: ids unique, Anthropic answers 200', async () => {
    const tools = [{ name: 'get_weather', input_schema: SCHEMA as Anthropic.Tool.InputSchema }];
    const user = { role: 'user' as const, content: 'weather in Oslo and Bergen?' };
    const turn = (model: string, messages: Anthropic.MessageParam[]) =>
      anthropic.messages.create({ model, max_tokens: 64, messages, tools });
    const history: Anthropic.MessageParam[] = [user];
    const ids: string[] = [];
    // Two tool turns served by Gemini: each answer's call becomes history. (A vendor answers text
    // right after tool results, so the user asks again between the two.)
    for (let i = 0; i < 2; i++) {
      if (i > 0) history.push({ role: 'assistant', content: 'Oslo: 3 °C.' }, { role: 'user', content: 'And Bergen?' });
      const answer = await turn('gemini/gemini-2.5-flash', history);
      expect(lastProvider()).toMatchObject({ provider: 'gemini', status: 200 });
      const use = answer.content.find((b) => b.type === 'tool_use')!;
      ids.push(use.id);
      history.push(
        { role: 'assistant', content: answer.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '{"temp":3}' }] },
      );
    }
    // Gemini numbers its calls from 0 in every answer; the router must not pass call_0 on twice.
    expect(new Set(ids).size).toBe(2);
    // The next turn goes to Anthropic, which refuses a history whose tool_use ids repeat.
    const next = await turn('anthropic/claude-haiku-4-5', history);
    expect(lastProvider()).toMatchObject({ provider: 'anthropic', status: 200 });
    expect(next.content.length).toBeGreaterThan(0);
  });
});
