import { afterEach, describe, expect, it } from 'vitest';
import { RouterConfigSchema } from '../../router/config/schema.js';
import { Router } from '../../router/router.js';
import { startRouterServer, type RouterServer } from '../../router/server/http-server.js';
import { startHostileUpstream, type Hostility, type HostileUpstream } from '../fixtures/upstreams/hostile-upstream.js';
import { serve, type Served } from '../helpers/serve.js';

// Upstreams that misbehave (test/fixtures/upstreams/hostile-upstream.ts) must cost the router one
// failed attempt each, never its memory, its other clients, its keys or its honesty.

const KEY = 'sk-router-own-key-0123456789';
const SIM = `
version: 1
name: healthy
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim-healthy-key }], latency: { completionTokens: 4 } }
`;

let hostile: HostileUpstream | undefined;
let served: Served | undefined;
let router: Router | undefined;
let server: RouterServer | undefined;
afterEach(async () => {
  await server?.close({ graceMs: 0 });
  await router?.close();
  await hostile?.close();
  await served?.close();
  [hostile, served, router, server] = [undefined, undefined, undefined, undefined];
});

/** A router whose first choice is the hostile upstream, with the simulator as a healthy fallback. */
async function up(
  hostility: Hostility,
  overrides: Record<string, unknown> = {},
  withFallback = true,
  vendor = 'openai',
) {
  hostile = await startHostileUpstream(hostility, { bigBodyBytes: 5 * 1024 * 1024 });
  const providers: unknown[] = [
    {
      id: 'hostile',
      vendor,
      baseUrl: hostile.baseUrl,
      keys: [{ id: 'k', env: 'HOSTILE_KEY' }],
      models: [{ name: 'gpt-4o-mini', quality: 1 }],
    },
  ];
  const env: Record<string, string> = { HOSTILE_KEY: KEY };
  if (withFallback) {
    served = await serve(SIM);
    providers.push({
      id: 'healthy',
      vendor: 'openai',
      baseUrl: `${served.origin}/openai/v1`,
      keys: [{ id: 'k', env: 'HEALTHY_KEY' }],
      models: [{ name: 'gpt-4o-mini', quality: 0 }],
    });
    env.HEALTHY_KEY = 'sk-sim-healthy-key';
  }
  const config = RouterConfigSchema.parse({
    version: 1,
    providers,
    routing: { weights: { cost: 0, latency: 0, reliability: 0, quality: 10, capacity: 0 } },
    ...overrides,
  });
  router = new Router(config, { env, seed: 1 });
  server = await startRouterServer(router, { port: 0 });
  return server.origin;
}

const chat = (origin: string, body: Record<string, unknown> = {}) =>
  fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...body }),
  });

describe('the router given a hostile upstream', () => {
  it('fails a stream without line ends as malformed at its bound and fails over, staying responsive', async () => {
    const origin = await up('sse-without-newlines');
    const rssBefore = process.memoryUsage().rss;
    const answers = await Promise.all([0, 1, 2].map(() => chat(origin, { stream: true })));
    const healthStarted = performance.now();
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    const healthMs = performance.now() - healthStarted;
    const texts = await Promise.all(answers.map((r) => r.text()));
    for (const [i, r] of answers.entries()) {
      expect(r.status).toBe(200);
      expect(r.headers.get('x-throttlelab-provider')).toBe('healthy');
      expect(texts[i]).toContain('data: [DONE]');
    }
    // The defect reached 2 GB and a 9.8 s /healthz with three such streams.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(300 * 1024 * 1024);
    expect(healthMs).toBeLessThan(2000);
    const metrics = await (await fetch(`${origin}/metrics`)).text();
    expect(metrics).toMatch(
      /attempts_total\{provider="hostile",key="k",model="gpt-4o-mini",outcome="stream_error"\} 3/,
    );
  });

  it('holds a reset 99,999,999 hours away to breaker.maxOpenFor, in its waits and its Retry-After', async () => {
    // A window vendor: no requests until the reset, which the defect put 1,198 years away.
    const origin = await up(
      'reset-in-eons',
      { breaker: { maxOpenFor: '2s' }, deadline: { default: '1s' } },
      false,
      'openai-compatible',
    );
    expect((await chat(origin)).status).toBe(200);
    const refused = await chat(origin);
    expect(refused.status).toBe(503);
    // The defect told clients Retry-After: 3779999963 (about 120 years).
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 2100));
    expect((await chat(origin)).status).toBe(200);
    expect(hostile!.requests).toBe(2);
  });

  it('never passes an upstream redirect to its client', async () => {
    const origin = await up('redirect');
    const r = await chat(origin);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-throttlelab-provider')).toBe('healthy');
    expect(JSON.parse(r.headers.get('x-throttlelab-attempts') ?? '0')).toBe(2);
    await up2Redirect();
  });

  it('redacts its own key from an upstream 4xx that echoes the request headers', async () => {
    const origin = await up('echo-headers-400', {}, false);
    const r = await chat(origin);
    expect(r.status).toBe(400);
    const text = await r.text();
    expect(text).not.toContain(KEY);
    expect(text).toContain('[REDACTED]');
  });

  it('redacts its own key from an answer that echoes it', async () => {
    const origin = await up('echo-headers-200', {}, false);
    const text = await (await chat(origin)).text();
    expect(text).not.toContain(KEY);
    expect(JSON.parse(text).choices[0].message.content).toBe('You sent Bearer [REDACTED]');
  });

  it('keeps negative and absurd upstream usage out of its counters', async () => {
    const origin = await up('absurd-usage', {}, false);
    expect((await chat(origin)).status).toBe(200);
    const metrics = await (await fetch(`${origin}/metrics`)).text();
    expect(metrics).toContain(
      'throttlelab_router_tokens_total{provider="hostile",key="k",model="gpt-4o-mini",direction="prompt"} 0',
    );
    expect(metrics).toContain(
      'throttlelab_router_tokens_total{provider="hostile",key="k",model="gpt-4o-mini",direction="completion"} 0',
    );
    expect(metrics).not.toMatch(/e\+308|-5\b/);
  });

  it('bounds the bytes of answers read at once, failing the attempts past it rather than growing', async () => {
    const origin = await up('big-body', { attempt: { maxBufferedBytes: 8 * 1024 * 1024 } });
    const answers = await Promise.all([0, 1, 2, 3, 4, 5].map(() => chat(origin)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const by = answers.map((r) => r.headers.get('x-throttlelab-provider'));
    // Two 5 MB answers do not fit in 8 MB at once: at least one attempt was given up and failed over.
    expect(by).toContain('healthy');
    await Promise.all(answers.map((r) => r.arrayBuffer()));
  });
});

async function up2Redirect() {
  // Without a fallback the client gets the router's own 5xx, never the 302.
  await server?.close({ graceMs: 0 });
  await router?.close();
  await hostile?.close();
  await served?.close();
  const origin = await up('redirect', { retry: { maxAttempts: 1 } }, false);
  const r = await chat(origin);
  expect(r.status).not.toBe(302);
  expect(r.status).toBeGreaterThanOrEqual(500);
}
