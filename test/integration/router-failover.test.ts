// Over 300 lines on purpose: each failover behaviour against the simulator, sharing one setup.
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { LedgerRow } from '../../simulator/ledger/ledger-row.js';
import type { Router } from '../../router/router.js';
import { startRouterServer, type RouterServer } from '../../router/server/http-server.js';
import { routerFor } from '../helpers/router-fixture.js';
import { serve, type Served } from '../helpers/serve.js';
import { closeAfterEach } from '../helpers/close-after-each.js';

const PROVIDERS = `
version: 1
name: failover
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim-openai }], quotas: [{ metric: requests, limit: 10000, per: 1m }, { metric: tokens, limit: 10000000, per: 1m }], latency: { completionTokens: 4 } }
  - { id: anthropic, vendor: anthropic, models: [claude-haiku-4-5], keys: [{ id: main, value: sk-ant-sim }], quotas: [{ metric: requests, limit: 10000, per: 1m }], latency: { completionTokens: 4 } }
`;

let served: Served | undefined;
let router: Router | undefined;
let server: RouterServer | undefined;
closeAfterEach(() => [server, router, served]);

const ask = (cid: string, extra: Record<string, unknown> = {}) => ({
  model: 'auto',
  messages: [{ role: 'user', content: `hello [tl:${cid}]` }],
  ...extra,
});
const rows = (s: Served): LedgerRow[] => [...s.sim.ledger.rowsIterator()];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Prefer openai: it is cheaper in this config, so it is tried first when both are healthy.
const PREFER_OPENAI = { routing: { weights: { cost: 0, latency: 0, reliability: 0, quality: 10, capacity: 0 } } };

describe('router failover, judged from the simulator ledger', () => {
  it('fails over within one request on a 429, and the client never sees it', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: limited, kind: status, match: { provider: openai }, status: 429, hint: { form: seconds, after: 30s } }`);
    router = routerFor(served, PREFER_OPENAI);
    // Make openai the better candidate so the 429 happens first.
    (router.targets.find((t) => t.provider === 'openai')!.modelConfig as { quality: number }).quality = 1;
    const r = await router.route(ask('r1'));
    expect(r.kind === 'response' && r.status).toBe(200);
    const attempts = rows(served).filter((x) => x.correlationId === 'r1');
    expect(attempts.map((a) => [a.provider, a.status])).toEqual([
      ['openai', 429],
      ['anthropic', 200],
    ]);
    // The key is now closed for the announced window: the next request goes straight to anthropic.
    await router.route(ask('r2'));
    expect(
      rows(served)
        .filter((x) => x.correlationId === 'r2')
        .map((a) => a.provider),
    ).toEqual(['anthropic']);
  });

  it('sends nothing to a key inside its announced wait window, then exactly one probe', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: limited, kind: status, match: { provider: openai, firstN: 1 }, status: 429, hint: { form: ms, after: 400ms } }`);
    router = routerFor(served, { ...PREFER_OPENAI, breaker: { jitterRatio: 0 } });
    (router.targets.find((t) => t.provider === 'openai')!.modelConfig as { quality: number }).quality = 1;
    await router.route(ask('first'));
    const hintAt = rows(served).find((x) => x.status === 429)!;
    const windowEnd = hintAt.firstByteAt! + hintAt.hintMs!;
    // Traffic during the window, and a burst right after it.
    for (let i = 0; i < 5; i++) await router.route(ask(`during-${i}`));
    // Past the announced end and past the router's own window (it opened it on reading the 429,
    // which on a busy machine can be well after the simulator sent it).
    const limit = () =>
      (
        router!.state() as {
          targets: Array<{ target: string; circuits: { model: { state: string; until?: number } } }>;
        }
      ).targets.find((t) => t.target.startsWith('openai/'))!.circuits.model;
    while (Date.now() < windowEnd + 20 || (limit().state === 'open' && Date.now() < limit().until!)) await sleep(10);
    await Promise.all(Array.from({ length: 20 }, (_, i) => router!.route(ask(`after-${i}`))));
    const openai = rows(served).filter((x) => x.provider === 'openai');
    expect(openai.filter((x) => x.arrivalAt > hintAt.arrivalAt && x.arrivalAt < windowEnd)).toEqual([]);
    const after = openai.filter((x) => x.arrivalAt >= windowEnd);
    const firstAnswer = Math.min(...after.map((x) => x.firstByteAt!));
    expect(after.filter((x) => x.arrivalAt < firstAnswer)).toHaveLength(1);
    expect(rows(served).filter((x) => x.status === 429)).toHaveLength(1);
  });

  it('answers a hanging provider by the deadline, failing over', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: hang, kind: hang, match: { provider: openai } }`);
    router = routerFor(served, { ...PREFER_OPENAI, attempt: { timeout: '300ms' }, deadline: { default: '2s' } });
    (router.targets.find((t) => t.provider === 'openai')!.modelConfig as { quality: number }).quality = 1;
    const t0 = Date.now();
    const r = await router.route(ask('h1'));
    expect(r.kind === 'response' && r.status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(
      rows(served)
        .filter((x) => x.correlationId === 'h1')
        .map((a) => [a.provider, a.end]),
    ).toEqual([
      ['openai', 'client-abort'],
      ['anthropic', 'complete'],
    ]);
  });

  it('answers by the deadline with a 504 when every provider hangs', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: hang, kind: hang }`);
    router = routerFor(served, { attempt: { timeout: '10s' }, deadline: { default: '600ms' } });
    const t0 = Date.now();
    const r = await router.route(ask('h2'));
    const took = Date.now() - t0;
    expect(r.kind === 'response' && r.status).toBe(504);
    expect(took).toBeGreaterThanOrEqual(590);
    // Far below the 10 s attempt timeout: the deadline cut the attempt. Not tighter, so a busy
    // machine's timer lag cannot fail it.
    expect(took).toBeLessThan(3000);
    if (r.kind === 'response')
      expect(JSON.parse(r.body).error).toMatchObject({
        code: 'deadline_exceeded',
        attempts: [{ provider: expect.any(String), outcome: 'timeout' }],
      });
  });

  it('fails over from a DeepSeek-style keep-alive hold on its first-token timer', async () => {
    served = await serve(`${PROVIDERS}
  - { id: deepseek, vendor: deepseek, models: [deepseek-chat], keys: [{ id: main, value: sk-ds-sim }], latency: { completionTokens: 4 } }
faults:
  - { id: hold, kind: keep-alive, match: { provider: deepseek }, holdFor: 20s, interval: 100ms }`);
    router = routerFor(served, {
      attempt: { firstTokenTimeout: '400ms' },
      deadline: { default: '3s' },
      aliases: { ds: ['deepseek/deepseek-chat', 'anthropic/claude-haiku-4-5'] },
      routing: { weights: { cost: 0, latency: 0, reliability: 0, quality: 10, capacity: 0 } },
    });
    (router.targets.find((t) => t.provider === 'deepseek')!.modelConfig as { quality: number }).quality = 1;
    for (const stream of [true, false]) {
      const cid = `ka-${stream}`;
      const t0 = Date.now();
      const r = await router.route({ model: 'ds', stream, messages: [{ role: 'user', content: `hi [tl:${cid}]` }] });
      if (r.kind === 'stream') for await (const _ of r.rest) void _;
      expect(r.kind === 'stream' || (r.kind === 'response' && r.status === 200)).toBe(true);
      expect(Date.now() - t0).toBeLessThan(2500);
      expect(
        rows(served)
          .filter((x) => x.correlationId === cid)
          .map((a) => a.provider),
      ).toEqual(['deepseek', 'anthropic']);
    }
  });

  it('ends a stream broken after its first token with an explicit error event', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: cut, kind: stream-break, afterChunks: 2, end: error-event }`);
    router = routerFor(served);
    const r = await router.route(ask('s1', { stream: true }));
    expect(r.kind).toBe('stream');
    if (r.kind !== 'stream') return;
    let text = r.first.join('');
    for await (const f of r.rest) text += f;
    expect(text).not.toContain('[DONE]');
    // In the router's own words: the provider's error text is not the client's (OWN-3).
    expect(text.trimEnd().split('\n\n').at(-1)).toBe(
      'data: {"error":{"message":"The provider was overloaded during the stream.","type":"upstream_error","param":null,"code":"provider_overloaded"}}',
    );
  });

  it('ends a silently truncated upstream stream with an error event too', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: cut, kind: stream-break, afterChunks: 2, end: close }`);
    router = routerFor(served);
    const r = await router.route(ask('s2', { stream: true }));
    if (r.kind !== 'stream') throw new Error('expected a stream');
    let text = r.first.join('');
    for await (const f of r.rest) text += f;
    expect(text).toMatch(/"code":"stream_truncated"/);
    expect(text).not.toContain('[DONE]');
  });

  it('answers 503 with Retry-After when no provider has capacity before the deadline, never a 429', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: wall, kind: status, status: 429, hint: { form: seconds, after: 20s } }`);
    router = routerFor(served, { deadline: { default: '3s' } });
    const r = await router.route(ask('n1'));
    expect(r.kind === 'response' && r.status).toBe(503);
    if (r.kind !== 'response') return;
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(19);
    expect(JSON.parse(r.body).error.code).toBe('no_capacity');
    expect(rows(served)).toHaveLength(2);
  });

  it('sends each key only to its own provider', async () => {
    served = await serve(PROVIDERS);
    router = routerFor(served);
    await Promise.all(Array.from({ length: 20 }, (_, i) => router!.route(ask(`k${i}`))));
    expect(rows(served).map((x) => x.key)).toEqual(Array(20).fill('main'));
  });

  it('cancels the upstream attempt when its client disconnects', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: slow, kind: latency, ttft: 5s }`);
    router = routerFor(served);
    const ac = new AbortController();
    const pending = router.route(ask('gone'), { signal: ac.signal });
    await sleep(150);
    ac.abort();
    const r = await pending;
    expect(r.kind === 'response' && r.status).toBe(499);
    await sleep(50);
    expect(rows(served).find((x) => x.correlationId === 'gone')).toMatchObject({ end: 'client-abort' });
  });
});

describe('late answers do not reopen a closed window', () => {
  // Found by `throttlelab run scenarios/quickstart.yaml`: a stream sent before a 429 announced a
  // wait got its first token inside the wait, and its success closed the key's circuit early.
  it('keeps a key closed for its announced wait when an earlier request succeeds inside it', async () => {
    served = await serve(`
version: 1
name: late-success
providers:
  - { id: openai, vendor: openai, models: [gpt-4o, gpt-4o-mini], keys: [{ id: main, value: sk-sim-openai }], quotas: [{ metric: requests, limit: 10000, per: 1m }, { metric: tokens, limit: 10000000, per: 1m }], latency: { completionTokens: 4 } }
faults:
  - { id: slow-first-token, kind: latency, match: { provider: openai, model: gpt-4o }, ttft: 300ms }
  - { id: limited, kind: status, match: { provider: openai, model: gpt-4o-mini, firstN: 1 }, status: 429, hint: { form: seconds, after: 2s } }`);
    router = routerFor(served, { breaker: { jitterRatio: 0 } });
    const slow = router.route(ask('slow', { model: 'openai/gpt-4o', stream: true }));
    await sleep(50);
    // Limited for 2 s; the deadline is too short to wait, so the client gets a 503 at once.
    const limited = await router.route(ask('limited', { model: 'openai/gpt-4o-mini' }), { deadlineMs: 500 });
    expect(limited.kind === 'response' && limited.status).toBe(503);
    const s = await slow;
    expect(s.kind).toBe('stream');
    if (s.kind === 'stream') for await (const _ of s.rest) void _;
    // The slow stream succeeded inside the window; the key must stay closed until the window ends.
    const after = await router.route(ask('after', { model: 'openai/gpt-4o-mini' }), { deadlineMs: 300 });
    expect(after.kind === 'response' && after.status).toBe(503);
    const hint = rows(served).find((x) => x.status === 429)!;
    expect(
      rows(served).filter((x) => x.arrivalAt > hint.arrivalAt && x.arrivalAt < hint.firstByteAt! + hint.hintMs!),
    ).toEqual([]);
  });
});

describe('proactive capacity', () => {
  it('never draws a 429 from a provider whose headers announce its limit', async () => {
    served = await serve(`
version: 1
name: proactive
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim-openai }], quotas: [{ metric: requests, limit: 12, per: 1m }, { metric: tokens, limit: 1000000, per: 1m }], latency: { completionTokens: 4 } }
  - { id: anthropic, vendor: anthropic, models: [claude-haiku-4-5], keys: [{ id: main, value: sk-ant-sim }], quotas: [{ metric: requests, limit: 10000, per: 1m }], latency: { completionTokens: 4 } }
`);
    router = routerFor(served, PREFER_OPENAI);
    (router.targets.find((t) => t.provider === 'openai')!.modelConfig as { quality: number }).quality = 1;
    await router.route(ask('warm-up'));
    for (let i = 0; i < 8; i++) await router.route(ask(`seq-${i}`));
    for (let wave = 0; wave < 4; wave++)
      await Promise.all(Array.from({ length: 6 }, (_, i) => router!.route(ask(`wave-${wave}-${i}`))));
    const openai = rows(served).filter((x) => x.provider === 'openai');
    expect(openai.filter((x) => x.status === 429)).toEqual([]);
    // It used the provider up to its limit and sent the rest elsewhere.
    expect(openai.length).toBeGreaterThanOrEqual(11);
    expect(rows(served).filter((x) => x.provider === 'anthropic').length).toBeGreaterThan(10);
  });
});

describe('router server with the official openai SDK as its client', () => {
  it('serves chat completions, streams and models, Anthropic behind it', async () => {
    served = await serve(PROVIDERS);
    router = routerFor(served, {}, {}, ['anthropic']);
    server = await startRouterServer(router, { port: 0 });
    const client = new OpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'unused', maxRetries: 0 });
    const res = await client.chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.choices[0]!.message.content!.split(' ')).toHaveLength(4);
    expect(res.usage?.completion_tokens).toBe(4);
    const stream = await client.chat.completions.create({
      model: 'anthropic/claude-haiku-4-5',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      usage ??= chunk.usage ?? undefined;
    }
    expect(text.split(' ')).toHaveLength(4);
    expect(usage?.completion_tokens).toBe(4);
    const list = await client.models.list();
    expect(list.data.map((m) => m.id)).toContain('anthropic/claude-haiku-4-5');
  });

  it('raises a stream error as an APIError during iteration', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: cut, kind: stream-break, afterChunks: 2, end: error-event }`);
    router = routerFor(served, {}, {}, ['openai']);
    server = await startRouterServer(router, { port: 0 });
    const client = new OpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'unused', maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'auto',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const e = await (async () => {
      for await (const _ of stream) void _;
    })().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OpenAI.APIError);
  });
});
