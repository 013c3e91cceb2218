import { describe, expect, it } from 'vitest';
import type { Router } from '../../router/router.js';
import { routerFor } from '../helpers/router-fixture.js';
import { serve, type Served } from '../helpers/serve.js';
import { closeAfterEach } from '../helpers/close-after-each.js';
import { createSimTransport } from '../helpers/sim-transport.js';

// The reference router calls each of the six newer vendors through its adapter and reads their
// wait and capacity signals back through its decoders.
const SIM = `
version: 1
name: router-new-vendors
providers:
  - { id: bedrock, vendor: bedrock, models: [anthropic.claude-3-5-haiku-20241022-v1:0], keys: [{ id: main, value: "AKIASIMBEDROCK0001:sim-secret" }], quotas: [{ metric: requests, limit: 1000, per: 1m }], latency: { completionTokens: 5 } }
  - { id: vertex, vendor: vertex-ai, models: [gemini-2.5-flash], keys: [{ id: main, value: ya29.sim-vertex }], latency: { completionTokens: 5 } }
  - { id: openrouter, vendor: openrouter, models: [openai/gpt-4o-mini], keys: [{ id: main, value: sk-or-sim }], latency: { completionTokens: 5 } }
  - { id: cerebras, vendor: cerebras, models: [llama3.1-8b], keys: [{ id: main, value: csk-sim }], quotas: [{ metric: requests, limit: 14400, per: 1d }, { metric: tokens, limit: 60000, per: 1m }], latency: { completionTokens: 5 } }
  - { id: together, vendor: together, models: [llama-3.3-70b], keys: [{ id: main, value: tg-sim }], quotas: [{ metric: requests, limit: 100, per: 1s }], latency: { completionTokens: 5 } }
  - { id: xai, vendor: xai, models: [grok-4], keys: [{ id: main, value: xai-sim }], latency: { completionTokens: 5 } }
`;

const MODELS = [
  'bedrock/anthropic.claude-3-5-haiku-20241022-v1:0',
  'vertex/gemini-2.5-flash',
  'openrouter/openai/gpt-4o-mini',
  'cerebras/llama3.1-8b',
  'together/llama-3.3-70b',
  'xai/grok-4',
];

let served: Served | undefined;
let router: Router | undefined;
closeAfterEach(() => [router, served]);

const ask = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: 'user', content: 'hello [tl:c1]' }],
  ...extra,
});

describe('the reference router against the newer vendors', () => {
  it.each(MODELS)('answers through %s in OpenAI shape with the provider usage', async (model) => {
    served = await serve(SIM);
    router = routerFor(served);
    const r = await router.route(ask(model));
    expect(r.kind).toBe('response');
    if (r.kind !== 'response') return;
    expect(r.status).toBe(200);
    const body = JSON.parse(r.body);
    expect(body.usage.completion_tokens).toBe(5);
    expect(body.choices[0].message.content.split(' ')).toHaveLength(5);
    expect(served.sim.ledger.row(0)).toMatchObject({ key: 'main', correlationId: 'c1', status: 200 });
  });

  // Simulated runs call the simulator in process: Bedrock's binary event stream must reach the
  // router's AWS reader as the bytes the HTTP server would send (it once came UTF-8 encoded, and
  // every Bedrock stream in simulated time ended in a 503 after complete attempts).
  it.each(MODELS.flatMap((m) => (['HTTP', 'the in-process transport'] as const).map((via) => [m, via] as const)))(
    'streams through %s over %s as OpenAI chunks with usage, ending in [DONE]',
    async (model, via) => {
      served = await serve(SIM);
      router =
        via === 'HTTP' ? routerFor(served) : routerFor(served, {}, { transport: createSimTransport(served.sim) });
      const r = await router.route(ask(model, { stream: true, stream_options: { include_usage: true } }));
      expect(r.kind).toBe('stream');
      if (r.kind !== 'stream') return;
      let text = r.first.join('');
      for await (const f of r.rest) text += f;
      const datas = text
        .split('\n\n')
        .filter(Boolean)
        .map((l) => l.replace(/^data: /, ''));
      expect(datas.at(-1)).toBe('[DONE]');
      const chunks = datas.slice(0, -1).map((d) => JSON.parse(d));
      expect(
        chunks
          .map((c) => c.choices[0]?.delta?.content ?? '')
          .join('')
          .split(' '),
      ).toHaveLength(5);
      expect(chunks.find((c) => c.usage)?.usage.completion_tokens).toBe(5);
      expect(served.sim.ledger.size).toBe(1);
    },
  );

  it('signs Bedrock calls with SigV4 and the simulator records the access key id, never the secret', async () => {
    served = await serve(SIM);
    router = routerFor(served);
    await router.route(ask(MODELS[0]!));
    const row = served.sim.ledger.row(0)!;
    expect(row.key).toBe('main');
    expect(JSON.stringify(row)).not.toContain('sim-secret');
  });

  it.each([
    ['openrouter', 'openrouter/openai/gpt-4o-mini', '', 'seconds'],
    ['cerebras', 'cerebras/llama3.1-8b', '', 'reset-header'],
    ['together', 'together/llama-3.3-70b', 'options: { retryAfterOn429: true }, ', 'seconds'],
    ['vertex', 'vertex/gemini-2.5-flash', 'options: { retryInfo: true }, ', 'body'],
  ])(
    'waits out the wait a %s 429 announces in its own form before retrying',
    async (provider, model, options, form) => {
      served = await serve(`${SIM.replace(`- { id: ${provider}, `, `- { id: ${provider}, ${options}`)}
faults:
  - { id: f, kind: status, match: { provider: ${provider}, firstN: 1 }, status: 429, hint: { after: 1s } }`);
      router = routerFor(served, { retry: { backoff: { base: 10, max: 20 } } });
      const r = await router.route(ask(model));
      expect(r.kind === 'response' && r.status).toBe(200);
      const [first, second] = [served.sim.ledger.row(0)!, served.sim.ledger.row(1)!];
      expect(first).toMatchObject({ status: 429, hintForm: form });
      expect(first.hintMs).toBeGreaterThanOrEqual(1000);
      expect(second.status).toBe(200);
      expect(second.arrivalAt - first.firstByteAt!).toBeGreaterThanOrEqual(first.hintMs! - 5);
    },
  );

  it("reads xAI's credits wall (403 permission-denied) as a quota wall, not a refused key", async () => {
    served = await serve(`${SIM}
faults:
  - { id: wall, kind: status, match: { provider: xai }, status: 403, error: quota_exhausted }`);
    router = routerFor(served);
    const r = await router.route(ask('xai/grok-4'));
    expect(r.kind === 'response' && r.status).toBe(503);
    if (r.kind !== 'response') return;
    expect(JSON.parse(r.body).error.attempts[0]).toMatchObject({
      provider: 'xai',
      outcome: 'quota_exhausted',
      status: 403,
    });
  });

  it("reads a Bedrock ServiceQuotaExceededException (400) as a quota wall, not the caller's error", async () => {
    served = await serve(`${SIM}
faults:
  - { id: wall, kind: status, match: { provider: bedrock }, status: 400, error: quota_exhausted }`);
    router = routerFor(served);
    const r = await router.route(ask(MODELS[0]!));
    expect(r.kind === 'response' && r.status).toBe(503);
    if (r.kind !== 'response') return;
    expect(JSON.parse(r.body).error.attempts[0]).toMatchObject({ outcome: 'quota_exhausted', status: 400 });
  });
});
