import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { Router } from '../../router/router.js';
import { startRouterServer, type RouterServer } from '../../router/server/http-server.js';
import { closeAfterEach } from '../helpers/close-after-each.js';
import { routerConfigFor } from '../helpers/router-fixture.js';
import { serve, type Served } from '../helpers/serve.js';
import { BEDROCK_MODEL as MODEL, bedrockScenario } from '../helpers/bedrock-scenario.js';

const SIM = bedrockScenario('router-bedrock-cache', 1000, 5);

let served: Served | undefined;
let router: Router | undefined;
let server: RouterServer | undefined;
closeAfterEach(() => [server, router, served]);

async function start(): Promise<string> {
  served = await serve(SIM);
  const { config, env } = routerConfigFor(served);
  router = new Router(config, { env, seed: 3 });
  server = await startRouterServer(router, { port: 0 });
  return server.origin;
}

// About 3000 tokens of fixed instructions.
const LONG_SYSTEM = 'You answer questions about the weather in plain words. '.repeat(220);

describe('router cache hints to Bedrock Converse', () => {
  it('sends a cachePoint for /v1/messages cache_control and reports the write, then the read', async () => {
    const origin = await start();
    const client = new Anthropic({ baseURL: origin, apiKey: 'unused', maxRetries: 0 });
    const ask = (q: string) =>
      client.messages.create({
        model: `bedrock/${MODEL}`,
        max_tokens: 64,
        system: [{ type: 'text', text: LONG_SYSTEM, cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: q }],
      });
    const first = await ask('Is it raining?');
    const rows = () => [...served!.sim.ledger.rowsIterator()];
    const written = rows()[0]!.cacheWrite!;
    expect(written).toBeGreaterThan(2048);
    expect(first.usage).toMatchObject({ cache_creation_input_tokens: written, cache_read_input_tokens: 0 });
    const second = await ask('Is it sunny?');
    expect(second.usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: written });
    expect(second.usage.input_tokens + written).toBe(rows()[1]!.tokensIn);
  });

  it('ends the prompt with a cachePoint for a top-level cache_control (automatic caching)', async () => {
    const origin = await start();
    const client = new Anthropic({ baseURL: origin, apiKey: 'unused', maxRetries: 0 });
    const turn = { role: 'user' as const, content: 'Is it raining?' };
    const ask = (messages: Anthropic.MessageParam[]) =>
      client.messages.create({
        model: `bedrock/${MODEL}`,
        max_tokens: 64,
        system: LONG_SYSTEM,
        cache_control: { type: 'ephemeral' },
        messages,
      });
    const first = await ask([turn]);
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(2048);
    const second = await ask([turn, { role: 'assistant', content: 'No.' }, { role: 'user', content: 'Is it sunny?' }]);
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
  });

  it('streams the cache fields in the final usage of /v1/messages', async () => {
    const origin = await start();
    const client = new Anthropic({ baseURL: origin, apiKey: 'unused', maxRetries: 0 });
    const ask = (q: string) =>
      client.messages
        .stream({
          model: `bedrock/${MODEL}`,
          max_tokens: 64,
          system: [{ type: 'text', text: LONG_SYSTEM, cache_control: { type: 'ephemeral' } }],
          messages: [{ role: 'user', content: q }],
        })
        .finalMessage();
    const first = await ask('Is it raining?');
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(2048);
    const second = await ask('Is it sunny?');
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
  });

  it('reports Bedrock cache reads as cached_tokens on /v1/chat/completions', async () => {
    const origin = await start();
    const client = new OpenAI({ baseURL: `${origin}/v1`, apiKey: 'unused', maxRetries: 0 });
    const ask = (q: string) =>
      client.chat.completions.create({
        model: `bedrock/${MODEL}`,
        messages: [
          // Anthropic's cache_control on an OpenAI part, as LiteLLM and the router accept it.
          { role: 'system', content: [{ type: 'text', text: LONG_SYSTEM, cache_control: { type: 'ephemeral' } }] },
          { role: 'user', content: q },
        ] as OpenAI.ChatCompletionMessageParam[],
      });
    const first = await ask('Is it raining?');
    expect(first.usage!.prompt_tokens_details).toBeUndefined();
    const second = await ask('Is it sunny?');
    const rows = [...served!.sim.ledger.rowsIterator()];
    expect(second.usage!.prompt_tokens_details!.cached_tokens).toBe(rows[1]!.cacheRead);
    expect(second.usage!.prompt_tokens).toBe(rows[1]!.tokensIn);
  });
});
