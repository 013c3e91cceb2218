import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { serve, type Served } from '../helpers/serve.js';

const PROVIDERS = `
version: 1
name: sdk-anthropic
providers:
  - id: anthropic
    vendor: anthropic
    models: [claude-haiku-4-5]
    keys: [{ id: main, value: sk-ant-sim }]
    quotas:
      - { metric: requests, limit: 100, per: 1m }
      - { metric: input-tokens, limit: 100000, per: 1m }
      - { metric: output-tokens, limit: 100000, per: 1m }
    latency: { completionTokens: 6 }
  - id: tight
    vendor: anthropic
    models: [claude-haiku-4-5]
    keys: [{ id: main, value: sk-ant-tight }]
    # A bucket that cannot refill while the test runs, however slow the machine.
    quotas: [{ metric: requests, limit: 3, per: 1h }]
`;

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const ask = { model: 'claude-haiku-4-5', max_tokens: 64, messages: [{ role: 'user' as const, content: 'hello' }] };

describe('@anthropic-ai/sdk against the anthropic profile', () => {
  it('reads a message and its usage', async () => {
    served = await serve(PROVIDERS);
    const client = new Anthropic({ baseURL: `${served.origin}/anthropic`, apiKey: 'sk-ant-sim' });
    const msg = await client.messages.create(ask);
    expect(msg.content[0]).toMatchObject({ type: 'text' });
    expect(msg.usage.output_tokens).toBe(6);
    expect(msg.stop_reason).toBe('end_turn');
  });

  it('raises BadRequestError for a history whose tool_use ids repeat (as a Gemini-served agent writes)', async () => {
    served = await serve(PROVIDERS);
    const client = new Anthropic({ baseURL: `${served.origin}/anthropic`, apiKey: 'sk-ant-sim', maxRetries: 0 });
    const call = {
      role: 'assistant' as const,
      content: [{ type: 'tool_use' as const, id: 'call_0', name: 'f', input: {} }],
    };
    const back = {
      role: 'user' as const,
      content: [{ type: 'tool_result' as const, tool_use_id: 'call_0', content: 'ok' }],
    };
    const tools = [{ name: 'f', input_schema: { type: 'object' as const } }];
    await client.messages.create({ ...ask, tools, messages: [...ask.messages, call, back] });
    const e = await client.messages
      .create({ ...ask, tools, messages: [...ask.messages, call, back, call, back] })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Anthropic.BadRequestError);
    expect((e as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'messages.3.content.0: `tool_use` ids must be unique' },
    });
  });

  it('raises OverloadedError on 529 and retries it because x-should-retry says true', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: storm, kind: status, match: { provider: anthropic, firstN: 1 }, status: 529 }`);
    const noRetry = new Anthropic({ baseURL: `${served.origin}/anthropic`, apiKey: 'sk-ant-sim', maxRetries: 0 });
    const e = await noRetry.messages.create(ask).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Anthropic.APIError);
    expect((e as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect(e!.constructor.name).toBe('OverloadedError');

    served.sim.addFault({ id: 'again', kind: 'status', status: 529, match: { provider: 'anthropic', firstN: 1 } });
    const client = new Anthropic({ baseURL: `${served.origin}/anthropic`, apiKey: 'sk-ant-sim', maxRetries: 2 });
    await client.messages.create(ask);
    const rows = [...served.sim.ledger.rowsIterator()].slice(1);
    expect(rows.map((r) => [r.status, r.sdkRetryCount])).toEqual([
      [529, 0],
      [200, 1],
    ]);
  });

  it('honours retry-after on a 429: the retry arrives after the announced second', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: once, kind: status, match: { provider: anthropic, firstN: 1 }, status: 429, hint: { after: 800ms } }`);
    const client = new Anthropic({ baseURL: `${served.origin}/anthropic`, apiKey: 'sk-ant-sim', maxRetries: 1 });
    await client.messages.create(ask);
    const [first, second] = [served.sim.ledger.row(0)!, served.sim.ledger.row(1)!];
    expect(first).toMatchObject({ status: 429, hintMs: 1000, hintForm: 'seconds', errorType: 'rate_limit_error' });
    expect(second.arrivalAt - first.firstByteAt!).toBeGreaterThanOrEqual(995);
  });

  it('raises RateLimitError with the anthropic-ratelimit headers once the quota is spent', async () => {
    served = await serve(PROVIDERS);
    const client = new Anthropic({ baseURL: `${served.origin}/tight`, apiKey: 'sk-ant-tight', maxRetries: 0 });
    for (let i = 0; i < 3; i++) await client.messages.create(ask);
    const e = await client.messages.create(ask).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Anthropic.RateLimitError);
    const headers = (e as InstanceType<typeof Anthropic.RateLimitError>).headers;
    expect(headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    // The message names the window the quota means: this one is hourly, not per minute.
    expect((e as Error).message).toMatch(
      /would exceed the rate limit for your organization \([0-9a-f-]+\) of 3 requests per hour\./,
    );
    expect(headers.get('anthropic-ratelimit-requests-reset')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Number(headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('raises the spend-limit 429 as EnforcedSpendLimitReachedError, retried by status unless x-should-retry says false', async () => {
    served = await serve(`${PROVIDERS}
  - { id: strict, vendor: anthropic, models: [claude-haiku-4-5], keys: [{ id: main, value: sk-ant-strict }], options: { shouldRetryHeader: false-on-4xx } }
faults:
  - { id: spend, kind: status, match: { provider: [anthropic, strict] }, status: 429, error: quota_exhausted }`);
    const client = new Anthropic({ baseURL: `${served.origin}/anthropic`, apiKey: 'sk-ant-sim', maxRetries: 1 });
    const e = await client.messages.create(ask).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Anthropic.EnforcedSpendLimitReachedError);
    expect((e as InstanceType<typeof Anthropic.APIError>).headers?.get('retry-after')).toBeNull();
    expect(served.sim.ledger.query({ provider: 'anthropic' }).total).toBe(2);
    const strict = new Anthropic({ baseURL: `${served.origin}/strict`, apiKey: 'sk-ant-strict', maxRetries: 1 });
    await strict.messages.create(ask).catch(() => undefined);
    expect(served.sim.ledger.query({ provider: 'strict' }).total).toBe(1);
  });

  it('streams the event sequence (ping included on the wire) to the final message', async () => {
    served = await serve(PROVIDERS);
    const client = new Anthropic({ baseURL: `${served.origin}/anthropic`, apiKey: 'sk-ant-sim' });
    const stream = client.messages.stream(ask);
    const types: string[] = [];
    stream.on('streamEvent', (ev) => types.push(ev.type));
    const final = await stream.finalMessage();
    expect(final.usage.output_tokens).toBe(6);
    expect(types.slice(0, 2)).toEqual(['message_start', 'content_block_start']);
    expect(types.at(-1)).toBe('message_stop');
    const raw = await fetch(`${served.origin}/anthropic/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'sk-ant-sim', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ ...ask, stream: true }),
    }).then((r) => r.text());
    expect(raw).toContain('event: ping\ndata: {"type": "ping"}\n\n');
  });

  it('throws when an overloaded_error event arrives inside a 200 stream', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: cut, kind: stream-break, match: { provider: anthropic }, afterChunks: 3, end: error-event }`);
    const client = new Anthropic({ baseURL: `${served.origin}/anthropic`, apiKey: 'sk-ant-sim' });
    const e = await client.messages
      .stream(ask)
      .finalMessage()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Anthropic.APIError);
    expect(String((e as Error).message)).toMatch(/overloaded_error|Overloaded/);
  });
});
