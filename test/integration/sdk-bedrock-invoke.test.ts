import AnthropicBedrock from '@anthropic-ai/bedrock-sdk';
import {
  BedrockRuntimeClient,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  ServiceUnavailableException,
  ThrottlingException,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterEach, describe, expect, it } from 'vitest';
import { serve, type Served } from '../helpers/serve.js';
import {
  BEDROCK_KEY_ID as AKID,
  BEDROCK_MODEL as MODEL,
  BEDROCK_SECRET as SECRET,
  bedrockScenario,
} from '../helpers/bedrock-scenario.js';

const PROVIDERS = bedrockScenario(
  'sdk-bedrock-invoke',
  100,
  6,
  `  - id: tight
    vendor: bedrock
    models: ["${MODEL}"]
    keys: [{ id: main, value: "AKIASIMTIGHT00001:${SECRET}" }]
    # A bucket that cannot refill while the test runs, however slow the machine.
    quotas: [{ metric: requests, limit: 1, per: 1h }]
`,
);

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const ask = { model: MODEL, max_tokens: 64, messages: [{ role: 'user' as const, content: 'hello' }] };

function anthropicBedrock(origin: string, provider = 'bedrock', akid = AKID) {
  return new AnthropicBedrock({
    baseURL: `${origin}/${provider}`,
    awsAccessKey: akid,
    awsSecretKey: SECRET,
    awsRegion: 'us-east-1',
    maxRetries: 0,
  });
}

// HTTP/1.1 through NodeHttpHandler: the SDK's default handler speaks HTTP/2.
function awsClient(origin: string, provider = 'bedrock', akid = AKID) {
  return new BedrockRuntimeClient({
    endpoint: `${origin}/${provider}`,
    region: 'us-east-1',
    credentials: { accessKeyId: akid, secretAccessKey: SECRET },
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  });
}

const invokeBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    anthropic_version: 'bedrock-2023-05-31',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'hello' }],
    ...extra,
  });

describe('@anthropic-ai/bedrock-sdk against the bedrock profile (InvokeModel)', () => {
  it('reads a message and its usage from /model/{id}/invoke', async () => {
    served = await serve(PROVIDERS);
    const msg = await anthropicBedrock(served.origin).messages.create(ask);
    expect(msg.id).toMatch(/^msg_bdrk_01/);
    expect(msg.content[0]).toMatchObject({ type: 'text' });
    expect(msg.usage.output_tokens).toBe(6);
    expect(msg.stop_reason).toBe('end_turn');
    const [row] = [...served.sim.ledger.rowsIterator()];
    expect(row).toMatchObject({ endpoint: 'invoke', key: 'main', model: MODEL, status: 200, stream: false });
  });

  it('streams the Messages events from /invoke-with-response-stream', async () => {
    served = await serve(PROVIDERS);
    const stream = anthropicBedrock(served.origin).messages.stream(ask);
    const types: string[] = [];
    stream.on('streamEvent', (e) => types.push(e.type));
    const msg = await stream.finalMessage();
    expect(msg.usage.output_tokens).toBe(6);
    expect(msg.content[0]?.type === 'text' && msg.content[0].text.length).toBeGreaterThan(0);
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(types).not.toContain('ping');
    expect([...served.sim.ledger.rowsIterator()][0]).toMatchObject({ endpoint: 'invoke', stream: true });
  });

  it('raises RateLimitError (429) once the requests quota is spent', async () => {
    served = await serve(PROVIDERS);
    const client = anthropicBedrock(served.origin, 'tight', 'AKIASIMTIGHT00001');
    await client.messages.create(ask);
    const e = await client.messages.create(ask).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AnthropicBedrock.RateLimitError);
    expect((e as InstanceType<typeof AnthropicBedrock.RateLimitError>).headers.get('x-amzn-errortype')).toMatch(
      /^ThrottlingException:/,
    );
  });
});

describe('@aws-sdk/client-bedrock-runtime InvokeModel against the bedrock profile', () => {
  it('answers InvokeModelCommand with the Messages JSON', async () => {
    served = await serve(PROVIDERS);
    const out = await awsClient(served.origin).send(
      new InvokeModelCommand({ modelId: MODEL, contentType: 'application/json', body: invokeBody() }),
    );
    const msg = JSON.parse(new TextDecoder().decode(out.body)) as { type: string; usage: { output_tokens: number } };
    expect(out.contentType).toBe('application/json');
    expect(msg).toMatchObject({ type: 'message', role: 'assistant', usage: { output_tokens: 6 } });
  });

  it('streams chunk events whose last carries amazon-bedrock-invocationMetrics', async () => {
    served = await serve(PROVIDERS);
    const out = await awsClient(served.origin).send(
      new InvokeModelWithResponseStreamCommand({ modelId: MODEL, contentType: 'application/json', body: invokeBody() }),
    );
    const events: Array<Record<string, unknown>> = [];
    for await (const part of out.body!)
      if (part.chunk?.bytes)
        events.push(JSON.parse(new TextDecoder().decode(part.chunk.bytes)) as Record<string, unknown>);
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      ...events.slice(2, -3).map(() => 'content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events.at(-1)!['amazon-bedrock-invocationMetrics']).toMatchObject({ outputTokenCount: 6 });
    expect(events.slice(0, -1).some((e) => 'amazon-bedrock-invocationMetrics' in e)).toBe(false);
  });

  it('raises ThrottlingException (429) and ServiceUnavailableException (503) as Converse does', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: down, kind: status, match: { provider: bedrock, firstN: 1 }, status: 503 }`);
    const client = awsClient(served.origin);
    const send = (c: BedrockRuntimeClient) =>
      c.send(new InvokeModelCommand({ modelId: MODEL, contentType: 'application/json', body: invokeBody() }));
    const down = await send(client).catch((x: unknown) => x);
    expect(down).toBeInstanceOf(ServiceUnavailableException);
    const tight = awsClient(served.origin, 'tight', 'AKIASIMTIGHT00001');
    await send(tight);
    const throttled = await send(tight).catch((x: unknown) => x);
    expect(throttled).toBeInstanceOf(ThrottlingException);
    expect((throttled as ThrottlingException).$metadata.httpStatusCode).toBe(429);
  });

  it('refuses a body without anthropic_version as a ValidationException naming the key', async () => {
    served = await serve(PROVIDERS);
    const body = JSON.stringify({ max_tokens: 64, messages: [{ role: 'user', content: 'hello' }] });
    const e = await awsClient(served.origin)
      .send(new InvokeModelCommand({ modelId: MODEL, contentType: 'application/json', body }))
      .catch((x: unknown) => x);
    expect((e as Error).name).toBe('ValidationException');
    expect((e as Error).message).toBe(
      'Malformed input request: #: required key [anthropic_version] not found, please reformat your input and try again.',
    );
  });
});
