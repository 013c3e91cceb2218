import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Router } from '../../router/router.js';
import { startRouterServer, type RouterServer } from '../../router/server/http-server.js';
import { routerFor } from '../helpers/router-fixture.js';
import { serve, type Served } from '../helpers/serve.js';

// The AI SDK's default OpenAI model speaks the Responses API with `store` on, and sends the
// items of earlier answers back as `{ type: 'item_reference', id }`: every multi-step tool loop
// through the router failed at step 2 with 400 (issue 24). The router resolves the items it
// returned, whichever vendor serves the next turn.

const YAML = `
version: 1
name: item-reference
providers:
  - { id: gemini, vendor: gemini, models: [gemini-2.5-flash], keys: [{ id: main, value: sk-gemini-sim }], latency: { completionTokens: 3 }, toolCallRate: 1 }
  - { id: anthropic, vendor: anthropic, models: [claude-haiku-4-5], keys: [{ id: main, value: sk-ant-sim }], latency: { completionTokens: 3 }, toolCallRate: 1 }
`;

let served: Served;
let router: Router;
let server: RouterServer;
beforeAll(async () => {
  served = await serve(YAML);
  router = routerFor(served, { aliases: { agent: ['gemini/gemini-2.5-flash', 'anthropic/claude-haiku-4-5'] } });
  server = await startRouterServer(router, { port: 0 });
});
afterAll(async () => {
  await server.close();
  await router.close();
  await served.close();
});

const weather = tool({
  description: 'The weather in a city',
  inputSchema: jsonSchema<{ city: string }>({
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
  }),
  execute: async ({ city }) => ({ city, temp: 3 }),
});

/** The inputs the router was sent on /v1/responses, as the simulator's ledger does not keep client bodies. */
function recordingFetch(bodies: unknown[]): typeof fetch {
  return async (input, init) => {
    if (typeof init?.body === 'string') bodies.push(JSON.parse(init.body));
    return fetch(input, init);
  };
}

describe('item_reference through the router (@ai-sdk/openai default Responses model)', () => {
  it('runs a multi-step tool loop: step 2 references step 1 items and is served', async () => {
    const bodies: Array<{ input?: Array<{ type?: string }> }> = [];
    const openai = createOpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'client-a', fetch: recordingFetch(bodies) });
    const r = await generateText({
      model: openai('agent'),
      prompt: 'weather in Oslo?',
      tools: { weather },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(r.steps.length).toBeGreaterThanOrEqual(2);
    expect(r.steps[0]!.toolCalls.map((c) => c.toolName)).toEqual(['weather']);
    // The SDK did send references: the router resolved them rather than answering 400.
    const refs = bodies.slice(1).flatMap((b) => (b.input ?? []).filter((i) => i.type === 'item_reference'));
    expect(refs.length).toBeGreaterThan(0);
  });

  it('streams a multi-step tool loop the same way', async () => {
    const openai = createOpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'client-a' });
    const r = streamText({
      model: openai('agent'),
      prompt: 'weather in Oslo?',
      tools: { weather },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    const steps = await r.steps;
    expect(steps.length).toBeGreaterThanOrEqual(2);
    expect(steps[0]!.toolCalls.map((c) => c.toolName)).toEqual(['weather']);
  });

  it("answers 404 in OpenAI's shape for an id it never returned, or one returned to another caller", async () => {
    const a = new OpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'client-a', maxRetries: 0 });
    const b = new OpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'client-b', maxRetries: 0 });
    const first = await a.responses.create({ model: 'agent', input: 'hi' });
    const item = first.output[0]!;
    const ref = { type: 'item_reference' as const, id: item.id! };
    const again = await a.responses.create({ model: 'agent', input: [ref, { role: 'user', content: 'and?' }] });
    expect(again.status).toBe('completed');
    for (const [client, id] of [
      [a, 'msg_never_issued'],
      [b, item.id!],
    ] as const) {
      const err = await client.responses
        .create({
          model: 'agent',
          input: [
            { type: 'item_reference', id },
            { role: 'user', content: 'x' },
          ],
        })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
      expect((err as InstanceType<typeof OpenAI.NotFoundError>).error).toMatchObject({
        type: 'invalid_request_error',
        param: 'input',
        message: expect.stringMatching(new RegExp(`^Item with id '${id}' not found\\.`)),
      });
    }
  });

  it('keeps nothing for a request that says store: false', async () => {
    const a = new OpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'client-c', maxRetries: 0 });
    const first = await a.responses.create({ model: 'agent', input: 'hi', store: false });
    const err = await a.responses
      .create({ model: 'agent', input: [{ type: 'item_reference', id: first.output[0]!.id! }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
  });
});
