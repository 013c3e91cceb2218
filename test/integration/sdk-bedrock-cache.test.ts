import AnthropicBedrock from '@anthropic-ai/bedrock-sdk';
import { BedrockRuntimeClient, ConverseCommand, type SystemContentBlock } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterEach, describe, expect, it } from 'vitest';
import { serve, type Served } from '../helpers/serve.js';
import {
  BEDROCK_KEY_ID as AKID,
  BEDROCK_MODEL as MODEL,
  BEDROCK_SECRET as SECRET,
  bedrockScenario,
} from '../helpers/bedrock-scenario.js';

const PROVIDERS = bedrockScenario('sdk-bedrock-cache', 100, 4);

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

// About 3000 tokens of fixed instructions: above the model's minimum.
const LONG_SYSTEM = 'You answer questions about the weather in plain words. '.repeat(220);

function converse(origin: string, system: SystemContentBlock[], question: string) {
  const client = new BedrockRuntimeClient({
    endpoint: `${origin}/bedrock`,
    region: 'us-east-1',
    credentials: { accessKeyId: AKID, secretAccessKey: SECRET },
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  });
  return client.send(
    new ConverseCommand({ modelId: MODEL, system, messages: [{ role: 'user', content: [{ text: question }] }] }),
  );
}

describe('Bedrock prompt caching', () => {
  it('writes the prefix before a Converse cachePoint, then reads it; inputTokens are what follows', async () => {
    served = await serve(PROVIDERS);
    const system: SystemContentBlock[] = [{ text: LONG_SYSTEM }, { cachePoint: { type: 'default' } }];
    const first = await converse(served.origin, system, 'Is it raining?');
    const written = first.usage!.cacheWriteInputTokens!;
    expect(written).toBeGreaterThan(2048);
    expect(first.usage!.cacheReadInputTokens).toBe(0);
    const second = await converse(served.origin, system, 'Is it sunny?');
    expect(second.usage).toMatchObject({ cacheReadInputTokens: written, cacheWriteInputTokens: 0 });
    expect(second.usage!.inputTokens! + written).toBe(second.usage!.totalTokens! - second.usage!.outputTokens!);
    const rows = [...served.sim.ledger.rowsIterator()];
    expect(rows.map((r) => [r.cacheRead ?? 0, r.cacheWrite ?? 0])).toEqual([
      [0, written],
      [written, 0],
    ]);
  });

  it('caches nothing without a cachePoint and reports no cache fields', async () => {
    served = await serve(PROVIDERS);
    await converse(served.origin, [{ text: LONG_SYSTEM }], 'Is it raining?');
    const again = await converse(served.origin, [{ text: LONG_SYSTEM }], 'Is it sunny?');
    expect(again.usage!.cacheReadInputTokens).toBeUndefined();
    expect(again.usage!.cacheWriteInputTokens).toBeUndefined();
  });

  it('reads cache_control breakpoints in InvokeModel bodies (AnthropicBedrock)', async () => {
    served = await serve(PROVIDERS);
    const client = new AnthropicBedrock({
      baseURL: `${served.origin}/bedrock`,
      awsAccessKey: AKID,
      awsSecretKey: SECRET,
      awsRegion: 'us-east-1',
      maxRetries: 0,
    });
    const ask = (q: string) =>
      client.messages.create({
        model: MODEL,
        max_tokens: 64,
        system: [{ type: 'text', text: LONG_SYSTEM, cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: q }],
      });
    const first = await ask('Is it raining?');
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(2048);
    const second = await ask('Is it sunny?');
    expect(second.usage).toMatchObject({
      cache_read_input_tokens: first.usage.cache_creation_input_tokens,
      cache_creation_input_tokens: 0,
    });
  });
});
