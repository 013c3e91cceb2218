import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { Router } from '../../router/router.js';
import { startRouterServer, type RouterServer } from '../../router/server/http-server.js';
import { routerFor } from '../helpers/router-fixture.js';
import { serve, type Served } from '../helpers/serve.js';
import { closeAfterEach } from '../helpers/close-after-each.js';

const SIM = `
version: 1
name: router-server
providers:
  - { id: gemini, vendor: gemini, models: [gemini-2.5-flash], keys: [{ id: main, value: sim-gemini-key }], quotas: [{ metric: requests, limit: 1000, per: 1m }], latency: { completionTokens: 6 } }
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim-openai }], quotas: [{ metric: requests, limit: 1000, per: 1m }, { metric: tokens, limit: 1000000, per: 1m }], latency: { completionTokens: 6 } }
`;

let served: Served | undefined;
let router: Router | undefined;
let server: RouterServer | undefined;
closeAfterEach(() => [server, router, served]);

async function up(
  options: { tokens?: string[]; overrides?: Record<string, unknown>; only?: string[]; yaml?: string } = {},
) {
  served = await serve(options.yaml ?? SIM);
  router = routerFor(served, { server: { maxBodyBytes: 4096 }, ...options.overrides }, {}, options.only);
  server = await startRouterServer(router, { port: 0, authTokens: options.tokens });
  return server.origin;
}

describe('router HTTP server', () => {
  it('puts Gemini behind an OpenAI client, streaming and not', async () => {
    const origin = await up({ only: ['gemini'] });
    const client = new OpenAI({ baseURL: `${origin}/v1`, apiKey: 'x', maxRetries: 0 });
    const res = await client.chat.completions.create({
      model: 'gemini/gemini-2.5-flash',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(res.choices[0]!.message.content!.split(' ')).toHaveLength(6);
    expect(res.usage).toMatchObject({ completion_tokens: 6 });
    const stream = await client.chat.completions.create({
      model: 'auto',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    for await (const c of stream) text += c.choices[0]?.delta?.content ?? '';
    expect(text.split(' ')).toHaveLength(6);
  });

  it("answers bad JSON, oversized bodies, unknown models and routes in OpenAI's error shape", async () => {
    const origin = await up();
    const post = (body: string) =>
      fetch(`${origin}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const bad = await post('{"model":');
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({ type: 'invalid_request_error' });
    expect(
      (await post(JSON.stringify({ model: 'auto', messages: [{ role: 'user', content: 'x'.repeat(5000) }] }))).status,
    ).toBe(413);
    const unknown = await post(JSON.stringify({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }));
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe('model_not_found');
    expect((await post(JSON.stringify({ model: 'auto' }))).status).toBe(400);
    expect((await fetch(`${origin}/v2/nothing`)).status).toBe(404);
    expect((await fetch(`${origin}/v1/chat/completions`)).status).toBe(405);
  });

  it('requires a bearer token when configured, except for the health check', async () => {
    const origin = await up({ tokens: ['router-secret'] });
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    expect((await fetch(`${origin}/v1/models`)).status).toBe(401);
    expect((await fetch(`${origin}/v1/models`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await fetch(`${origin}/v1/models`, { headers: { authorization: 'Bearer router-secret' } })).status).toBe(
      200,
    );
  });

  it('exposes metering in /metrics and the ranking, circuits and capacity in /state', async () => {
    const origin = await up();
    const client = new OpenAI({ baseURL: `${origin}/v1`, apiKey: 'x', maxRetries: 0 });
    await client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    const metrics = await (await fetch(`${origin}/metrics`)).text();
    expect(metrics).toContain(
      'throttlelab_router_attempts_total{provider="openai",key="main",model="gpt-4o-mini",outcome="ok"} 1',
    );
    expect(metrics).toContain(
      'throttlelab_router_tokens_total{provider="openai",key="main",model="gpt-4o-mini",direction="completion"} 6',
    );
    expect(metrics).toMatch(/throttlelab_router_request_duration_seconds_count\{\} 1/);
    const state = await (await fetch(`${origin}/state`)).json();
    const openai = state.targets.find((t: { target: string }) => t.target === 'openai/main/gpt-4o-mini');
    expect(openai).toMatchObject({
      circuits: { provider: { state: 'closed' }, key: { state: 'closed' } },
      capacity: { requestsRemaining: expect.any(Number) },
      usage: { served: 1 },
    });
    expect(Object.keys(openai.scoreParts)).toEqual(['cost', 'latency', 'reliability', 'quality', 'capacity']);
    expect(JSON.stringify(state)).not.toContain('sk-sim');
  });

  it('tightens the deadline from the request header, never loosens it', async () => {
    const origin = await up({
      yaml: `${SIM}
faults:
  - { id: hang, kind: hang }`,
      overrides: { deadline: { default: '5s' } },
    });
    const t0 = Date.now();
    const r = await fetch(`${origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-throttlelab-deadline-ms': '300' },
      body: JSON.stringify({ model: 'auto', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(r.status).toBe(504);
    expect(Date.now() - t0).toBeLessThan(600);
  });
});
