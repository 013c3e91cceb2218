import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RouterConfigSchema } from '../../router/config/schema.js';
import { Router } from '../../router/router.js';
import { startRouterServer, type RouterServer } from '../../router/server/http-server.js';
import {
  startScriptedUpstream,
  type ScriptedAnswer,
  type ScriptedUpstream,
} from '../fixtures/upstreams/scripted-upstream.js';
import { routerFor } from '../helpers/router-fixture.js';
import { serve, type Served } from '../helpers/serve.js';
import { FUZZ_SEED, hostileValue, mutate } from './hostile-yaml.js';

// The router fed generated hostile request bodies, and generated hostile upstream answers: zero
// 500 "bug" answers, never a 429 or 3xx passed on, zero unhandled rejections, zero errors it had
// to survive, and bounded memory. Seeded: `FUZZ_SEED=n` replays a failure.

const rejections: unknown[] = [];
const onRejection = (e: unknown) => rejections.push(e);
beforeAll(() => void process.on('unhandledRejection', onRejection));
afterAll(() => void process.off('unhandledRejection', onRejection));

interface Answer {
  status: number;
  code: string | null;
  text: string;
}

async function send(origin: string, body: string | Uint8Array, headers: Record<string, string>): Promise<Answer> {
  const r = await fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : Buffer.from(body),
  });
  const text = await r.text();
  let code: string | null = null;
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? null;
  } catch {
    // a stream or not JSON
  }
  return { status: r.status, code, text };
}

const notABug = (a: Answer) => a.status !== 500 && a.code !== 'router_error';

describe('the router given generated hostile request bodies', () => {
  const SIM = `
version: 1
name: fuzz-bodies
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim-fuzz-openai }], latency: { completionTokens: 3 } }
  - { id: anthropic, vendor: anthropic, models: [claude-haiku-4-5], keys: [{ id: main, value: sk-ant-sim-fuzz }], latency: { completionTokens: 3 } }
  - { id: gemini, vendor: gemini, models: [gemini-2.5-flash], keys: [{ id: main, value: sim-gemini-fuzz }], latency: { completionTokens: 3 } }
`;
  let served: Served;
  let router: Router;
  let server: RouterServer;
  const errors: unknown[] = [];
  beforeAll(async () => {
    served = await serve(SIM);
    router = routerFor(served, { server: { maxBodyBytes: 256 * 1024 }, deadline: { default: '3s' } });
    server = await startRouterServer(router, { port: 0, onError: (e) => errors.push(e) });
  });
  afterAll(async () => {
    await server.close({ graceMs: 0 });
    await router.close();
    await served.close();
  });

  const MODELS = ['openai/gpt-4o-mini', 'anthropic/claude-haiku-4-5', 'gemini/gemini-2.5-flash', 'auto', 'nope'];
  const base = (model: string) => ({
    model,
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    ],
    stream: false,
    max_tokens: 8,
    stream_options: { include_usage: true },
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
  });
  const body: fc.Arbitrary<string | Uint8Array> = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.constantFrom(...MODELS), fc.array(fc.nat(), { minLength: 1, maxLength: 5 }), hostileValue)
        .map(([model, path, v]) => JSON.stringify(mutate(base(model), path, v))),
    },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 5 }).map((v) => JSON.stringify(v)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.integer({ min: 10, max: 60_000 }),
          fc.constantFrom('content', 'extra', 'tools'),
          fc.constantFrom(...MODELS),
        )
        .map(([d, at, model]) => {
          const deep = `${'['.repeat(d)}${']'.repeat(d)}`;
          const message =
            at === 'content' ? `{"role":"user","content":${deep}}` : `{"role":"user","content":"hi","${at}":${deep}}`;
          return `{"model":"${model}","messages":[${message}]}`;
        }),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 3000 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 100_000, unit: 'grapheme' }) },
  );
  const INNOCENT = JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
  const headers = fc.record({
    'content-type': fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'x/y'),
    'x-throttlelab-deadline-ms': fc.constantFrom('1500', '0', '-5', 'abc', '1e308', '9'.repeat(40)),
    'x-stainless-timeout': fc.constantFrom('2', '0', 'NaN', '-1', '1e12'),
  });

  it('answers 300 of them without a 500 "bug", a survived error or an unhandled rejection', async () => {
    const rssBefore = process.memoryUsage().rss;
    await fc.assert(
      fc.asyncProperty(body, headers, async (b, h) => {
        const a = await send(server.origin, b, h);
        expect(notABug(a), `${a.status} ${a.text.slice(0, 300)}`).toBe(true);
        expect(a.status).not.toBe(429);
        // Whatever one client sent, the next, innocent one is served: no client fault opens a circuit.
        const innocent = await send(server.origin, INNOCENT, { 'content-type': 'application/json' });
        expect(innocent.status, innocent.text.slice(0, 300)).toBe(200);
      }),
      { seed: FUZZ_SEED, numRuns: 300 },
    );
    expect(errors).toEqual([]);
    expect(rejections).toEqual([]);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(400 * 1024 * 1024);
  });
});

describe('the router given generated hostile upstream answers', () => {
  let upstream: ScriptedUpstream;
  let router: Router;
  let server: RouterServer;
  const errors: unknown[] = [];
  beforeAll(async () => {
    upstream = await startScriptedUpstream();
    const windows = { openFor: '10ms', maxOpenFor: '20ms', maxBackoffOpenFor: '10ms', quotaOpenFor: '20ms' };
    const config = RouterConfigSchema.parse({
      version: 1,
      providers: [
        { id: 'o', vendor: 'openai', baseUrl: `${upstream.origin}/v1`, keys: [{ id: 'k', env: 'KO' }], models: ['m'] },
        { id: 'a', vendor: 'anthropic', baseUrl: upstream.origin, keys: [{ id: 'k', env: 'KA' }], models: ['m'] },
        { id: 'g', vendor: 'gemini', baseUrl: upstream.origin, keys: [{ id: 'k', env: 'KG' }], models: ['m'] },
        { id: 'm', vendor: 'mistral', baseUrl: `${upstream.origin}/v1`, keys: [{ id: 'k', env: 'KM' }], models: ['m'] },
        {
          id: 'z',
          vendor: 'azure-openai',
          apiVersion: '2024-10-21',
          baseUrl: upstream.origin,
          keys: [{ id: 'k', env: 'KZ' }],
          models: ['m'],
        },
      ],
      breaker: windows,
      deadline: { default: '800ms' },
      attempt: { timeout: '400ms', firstTokenTimeout: '300ms' },
      retry: { maxAttempts: 2, maxWait: '50ms', backoff: { base: '5ms', max: '10ms' } },
    });
    const env = {
      KO: 'sk-fuzz-upstream-o',
      KA: 'sk-fuzz-upstream-a',
      KG: 'fuzz-upstream-g-key',
      KM: 'fuzz-upstream-m-key',
      KZ: 'fuzz-upstream-z-key',
    };
    router = new Router(config, { env, seed: 5 });
    server = await startRouterServer(router, { port: 0, onError: (e) => errors.push(e) });
  });
  afterAll(async () => {
    await server.close({ graceMs: 0 });
    await router.close();
    await upstream.close();
  });

  const HINTS = ['0', '-5', '1e9', 'abc', 'Wed, 21 Oct 2015 07:28:00 GMT', '9'.repeat(50), '2.5', ''];
  const RESETS = ['99999999h', '1ms', '-5s', 'garbage', '6m0s', '1e308', '0'];
  const COUNTS = ['0', '-1', '1e308', 'NaN', '10', '99999999999999999999'];
  const answerHeaders = fc.record(
    {
      'content-type': fc.constantFrom('application/json', 'text/event-stream', 'text/html', 'application/x-ndjson'),
      'retry-after': fc.constantFrom(...HINTS),
      'retry-after-ms': fc.constantFrom(...HINTS),
      'x-ratelimit-remaining-requests': fc.constantFrom(...COUNTS),
      'x-ratelimit-limit-requests': fc.constantFrom(...COUNTS),
      'x-ratelimit-reset-requests': fc.constantFrom(...RESETS),
      'anthropic-ratelimit-requests-remaining': fc.constantFrom(...COUNTS),
      'anthropic-ratelimit-requests-reset': fc.constantFrom('2015-10-21T07:28:00Z', 'soon', '2999-01-01T00:00:00Z'),
      'x-should-retry': fc.constantFrom('true', 'false', 'maybe'),
      ratelimit: fc.constantFrom('"default";r=0;t=99999999', 'garbage', 'limit=10, remaining=0, reset=1e9'),
    },
    { requiredKeys: [] },
  );
  const completion = (usage: unknown, content: unknown) =>
    JSON.stringify({
      id: 'x',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage,
    });
  const sseLine = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }).map((v) => `data: ${JSON.stringify(v)}\n\n`),
    fc.constantFrom(
      'data: [DONE]\n\n',
      ': keep-alive\n\n',
      '\n',
      'event: error\ndata: {"error":{"message":"x"}}\n\n',
      'data: {"choices":[{"delta":{"content":"hi"}}]}\n\n',
      'data: {"type":"content_block_delta","delta":{"type":"text_delta","text":"hi"}}\n\n',
    ),
    fc.string({ maxLength: 200, unit: 'binary' }),
  );
  const answerBody = fc.oneof(
    fc
      .tuple(fc.oneof(hostileValue, fc.constant({ prompt_tokens: -5, completion_tokens: 1e308 })), hostileValue)
      .map(([u, c]) => [completion(u, c)]),
    fc.jsonValue({ maxDepth: 4 }).map((v) => [JSON.stringify(v)]),
    fc.array(sseLine, { maxLength: 20 }),
    fc.uint8Array({ maxLength: 2000 }).map((b) => [b]),
    fc.constant(['{"choices": [{"message": {"content": "trunc']),
    fc.constant([] as string[]),
  );
  const answer = fc.record({
    status: fc.constantFrom(
      200,
      200,
      200,
      201,
      204,
      301,
      302,
      304,
      400,
      401,
      402,
      403,
      404,
      408,
      413,
      422,
      429,
      429,
      500,
      502,
      503,
      529,
      599,
    ),
    headers: answerHeaders as fc.Arbitrary<Record<string, string>>,
    chunks: answerBody as fc.Arbitrary<Array<string | Uint8Array>>,
  }) as fc.Arbitrary<ScriptedAnswer>;

  it('answers 200 client requests through them without a 500 "bug", a 429 or a 3xx passed on', async () => {
    const rssBefore = process.memoryUsage().rss;
    await fc.assert(
      fc.asyncProperty(
        answer,
        fc.constantFrom('o/m', 'a/m', 'g/m', 'm/m', 'z/m'),
        fc.boolean(),
        async (next, model, stream) => {
          upstream.next = next;
          const a = await send(
            server.origin,
            JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream }),
            { 'content-type': 'application/json' },
          );
          expect(notABug(a), `${a.status} ${a.text.slice(0, 300)}`).toBe(true);
          expect(a.status).not.toBe(429);
          expect(a.status < 300 || a.status >= 400, `passed on ${a.status}`).toBe(true);
        },
      ),
      { seed: FUZZ_SEED, numRuns: 200 },
    );
    expect(errors).toEqual([]);
    expect(rejections).toEqual([]);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(400 * 1024 * 1024);
  });
});
