import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Router } from '../../router/router.js';
import { startRouterServer, type RouterServer } from '../../router/server/http-server.js';
import { routerFor } from '../helpers/router-fixture.js';
import { serve, type Served } from '../helpers/serve.js';

// Clients that misbehave (malformed, oversized, slow, numerous, impatient) get their own 4xx or
// 503 at once; they never cost other clients their answers, nor the router its memory or its log.

const SIM = `
version: 1
name: hostile-clients
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim-openai-clients }], quotas: [{ metric: requests, limit: 1000, per: 1m }], latency: { completionTokens: 4 } }
`;

let served: Served | undefined;
let router: Router | undefined;
let server: RouterServer | undefined;
let errors: unknown[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await server?.close({ graceMs: 0 });
  await router?.close();
  await served?.close();
  [served, router, server] = [undefined, undefined, undefined];
  errors = [];
});

async function up(overrides: Record<string, unknown> = {}, yaml = SIM, openFilesLimit?: number) {
  served = await serve(yaml);
  router = routerFor(served, overrides);
  server = await startRouterServer(router, { port: 0, openFilesLimit, onError: (e) => errors.push(e) });
  return server.origin;
}

const post = (origin: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(`${origin}/v1/chat/completions`, { method: 'POST', headers, body });
const chat = (origin: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  post(
    origin,
    JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...extra }),
    headers ? { 'content-type': 'application/json', ...headers } : undefined,
  );

function open(origin: string): Promise<Socket> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const s = connect(Number(port), hostname, () => resolve(s));
    s.on('error', () => {});
    sockets.push(s);
  });
}

const closed = (s: Socket) =>
  new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve())));

describe('the router given hostile clients', () => {
  it('answers a body nested 5,000 deep with 400 at once and never holds it against the provider', async () => {
    const origin = await up();
    const deep = `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi","extra":${'['.repeat(5000)}${']'.repeat(5000)}}]}`;
    for (let i = 0; i < 5; i++) {
      const r = await post(origin, deep);
      expect(r.status).toBe(400);
      expect((await r.json()).error.message).toBe('Invalid request body: nested deeper than 64 levels.');
    }
    expect((await chat(origin)).status).toBe(200);
    const metrics = await (await fetch(`${origin}/metrics`)).text();
    expect(metrics).not.toContain('network_error');
    expect(metrics).not.toMatch(/circuit_open\{[^}]*\} 1/);
    expect(served!.sim.ledger.size).toBe(1);
  });

  it('refuses n > 1 rather than answering one choice', async () => {
    const origin = await up();
    const r = await chat(origin, { n: 3 });
    expect(r.status).toBe(400);
    expect((await r.json()).error).toMatchObject({ param: 'n' });
  });

  it('refuses a cross-site text/plain POST with 415, before routing it', async () => {
    const origin = await up();
    const r = await post(
      origin,
      JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      { 'content-type': 'text/plain;charset=UTF-8' },
    );
    expect(r.status).toBe(415);
    expect(served!.sim.ledger.size).toBe(0);
  });

  it('answers an endless chunked body with 413 at the limit instead of reading it for ever', async () => {
    const origin = await up({ server: { maxBodyBytes: 4096 } });
    const s = await open(origin);
    s.write(
      'POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n',
    );
    let answer = '';
    s.on('data', (d) => (answer += d));
    let sent = 0;
    const chunk = `${(64 * 1024).toString(16)}\r\n${'a'.repeat(64 * 1024)}\r\n`;
    while (!answer && !s.destroyed && sent < 200 * 1024 * 1024) {
      if (!s.write(chunk)) await new Promise((r) => s.once('drain', r).once('close', r));
      sent += chunk.length;
    }
    await closed(s);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    // The defect read 6 GB; a few windows of socket buffers is all that may pass the limit.
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });

  it('cuts clients that trickle their request with 408 once the request timeout passes', async () => {
    const origin = await up({ server: { requestTimeout: '1s', headersTimeout: '1s' } });
    const trickling = await Promise.all(Array.from({ length: 20 }, () => open(origin)));
    const started = performance.now();
    const timers = trickling.map((s, i) => {
      s.write(
        'POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n',
      );
      return setInterval(() => !s.destroyed && s.write(i % 2 ? 'a' : ' '), 100);
    });
    const answers = trickling.map((s) => {
      let text = '';
      s.on('data', (d) => (text += d));
      return closed(s).then(() => text);
    });
    const texts = await Promise.all(answers);
    timers.forEach(clearInterval);
    for (const t of texts) expect(t).toMatch(/^HTTP\/1\.1 408 /);
    // The defect held 200 such clients for 100 s and more.
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('closes an idle connection past server.maxConnections, keeping those held', async () => {
    const origin = await up({ server: { maxConnections: 3 } });
    const held = await Promise.all([open(origin), open(origin), open(origin)]);
    await new Promise((r) => setTimeout(r, 50));
    const extra = await open(origin);
    await closed(extra);
    expect(held.every((s) => !s.destroyed)).toBe(true);
  });

  it('answers /healthz past server.maxConnections, and 503 to anything else there', async () => {
    const origin = await up({ server: { maxConnections: 3 } });
    const held = await Promise.all([open(origin), open(origin), open(origin)]);
    await new Promise((r) => setTimeout(r, 50));
    const health = await fetch(`${origin}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('connection')).toBe('close');
    const busy = await chat(origin);
    expect(busy.status).toBe(503);
    expect((await busy.json()).error.code).toBe('too_many_connections');
    expect(held.every((s) => !s.destroyed)).toBe(true);
  });

  it('lowers server.maxConnections to what the open-files limit allows', async () => {
    await up({}, SIM, 1024);
    expect(server!.maxConnections).toBe(476);
    expect(server!.server.maxConnections).toBe(476 + 8);
  });

  it('logs nothing for clients that hang up mid-body or while waiting', async () => {
    const origin = await up({}, SIM.replace('limit: 1000, per: 1m', 'limit: 1, per: 1m'));
    expect((await chat(origin)).status).toBe(200);
    const waiting = Array.from({ length: 10 }, () => {
      const ac = new AbortController();
      const r = chat(origin, {}, { 'x-throttlelab-deadline-ms': '30000' }).catch(() => undefined);
      setTimeout(() => ac.abort(), 100);
      return { ac, r };
    });
    const midBody = await Promise.all(Array.from({ length: 10 }, () => open(origin)));
    for (const s of midBody)
      s.write(
        'POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"mo',
      );
    await new Promise((r) => setTimeout(r, 200));
    for (const s of midBody) s.destroy();
    await server!.close({ graceMs: 0 });
    await Promise.all(waiting.map((w) => w.r));
    expect(errors).toEqual([]);
  });
});

describe('the router stopping', () => {
  const SLOW = SIM.replace(
    'latency: { completionTokens: 4 }',
    'latency: { completionTokens: 20, tokensPerSecond: 20 }',
  );

  it('ends a live stream with an error event, and a request it holds with 503, never a silent cut', async () => {
    // One request per 10 s: the second waits for capacity (about 10 s, inside its 20 s deadline).
    const origin = await up({}, SLOW.replace('limit: 1000, per: 1m', 'limit: 1, per: 10s'));
    const stream = await chat(origin, { stream: true });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    await reader.read();
    const held = chat(origin, {}, { 'x-throttlelab-deadline-ms': '20000' });
    await new Promise((r) => setTimeout(r, 200));
    await server!.close({ graceMs: 0 });
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    expect(rest).toContain('"code":"router_shutdown"');
    expect(rest).not.toContain('[DONE]');
    const h = await held;
    expect(h.status).toBe(503);
    expect((await h.json()).error.code).toBe('router_shutdown');
  });

  it('lets requests in flight finish within the grace period', async () => {
    const origin = await up({}, SLOW);
    const stream = await chat(origin, { stream: true });
    const closing = server!.close({ graceMs: 10_000 });
    const text = await stream.text();
    await closing;
    expect(text).toContain('data: [DONE]');
  });
});

describe('the router under more waiting requests than capacity', () => {
  // Two requests per 2 s, refilled continuously (OpenAI's token bucket): one a second.
  const LIMITED = SIM.replace('limit: 1000, per: 1m', 'limit: 2, per: 2s');

  it('sheds at once the requests whose capacity before the deadline is spoken for', async () => {
    const origin = await up({ retry: { maxWait: '10s' } }, LIMITED);
    const answers = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const r = await chat(origin, {}, { 'x-throttlelab-deadline-ms': '2500' });
        return { status: r.status, code: r.status === 200 ? null : (await r.json()).error.code };
      }),
    );
    const shed = answers.filter((a) => a.code === 'router_overloaded');
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(2);
    // The defect held every one of them to its deadline and answered "no_capacity" there.
    expect(shed.length).toBeGreaterThanOrEqual(2);
    const { waitingHighWater, shed: reasons } = router!.admission();
    expect(reasons.spoken_for).toBe(shed.length);
    // Only those with capacity in view were held (a held request may be shed later, when it looks again).
    expect(waitingHighWater).toBeLessThan(12 - 2);
  });

  it('holds no more than admission.maxWaiting requests, answering the rest 503 at once', async () => {
    const origin = await up({ admission: { maxWaiting: 2 }, retry: { maxWait: '10s' } }, LIMITED);
    const answers = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const r = await chat(origin, {}, { 'x-throttlelab-deadline-ms': '2500' });
        const code = r.status === 200 ? null : ((await r.json()) as { error: { code: string } }).error.code;
        return { status: r.status, code, retryAfter: r.headers.get('retry-after') };
      }),
    );
    expect(router!.admission().waitingHighWater).toBeLessThanOrEqual(2);
    const shed = answers.filter((a) => a.code === 'router_overloaded');
    expect(shed.length).toBeGreaterThanOrEqual(7);
    for (const a of shed) expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
  });
});

describe('the example router config', () => {
  it('gives each attempt less than the whole deadline, so a hanging provider leaves time to fail over', async () => {
    const { readFile } = await import('node:fs/promises');
    const { parse } = await import('yaml');
    const { RouterConfigSchema } = await import('../../router/config/schema.js');
    const config = RouterConfigSchema.parse(parse(await readFile('docs/router.example.yaml', 'utf8')));
    expect(config.attempt.timeout).toBeLessThanOrEqual(config.deadline.default / 2);
  });
});
