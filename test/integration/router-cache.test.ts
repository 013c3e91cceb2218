import { describe, expect, it } from 'vitest';
import type { Router } from '../../router/router.js';
import { routerFor } from '../helpers/router-fixture.js';
import { serve, type Served } from '../helpers/serve.js';
import { closeAfterEach } from '../helpers/close-after-each.js';

const SIM = `
version: 1
name: router-cache
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim-openai }], quotas: [{ metric: tokens, limit: 10000000, per: 1m }], latency: { completionTokens: 5 } }
  - id: anthropic
    vendor: anthropic
    models: [claude-sonnet-4-5]
    keys: [{ id: k1, value: sk-ant-1 }, { id: k2, value: sk-ant-2 }, { id: k3, value: sk-ant-3 }]
    quotas: [{ metric: requests, limit: 1000, per: 1m }, { metric: input-tokens, limit: 10000000, per: 1m }]
    latency: { completionTokens: 5 }
  - { id: gemini, vendor: gemini, models: [gemini-2.5-flash], keys: [{ id: main, value: sim-gemini }], quotas: [{ metric: requests, limit: 1000, per: 1m }], latency: { completionTokens: 5 } }
`;

let served: Served | undefined;
let router: Router | undefined;
closeAfterEach(() => [router, served]);

/** About `tokens` tokens of text, different per `seed`. */
const text = (tokens: number, seed: string) => `${seed} `.repeat(tokens * 2).slice(0, tokens * 4);

/** An OpenAI request whose system prompt carries an Anthropic cache breakpoint on its part. */
function conversation(model: string, system: string, question: string, extra: Record<string, unknown> = {}) {
  return {
    model,
    messages: [
      { role: 'system', content: [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }] },
      { role: 'user', content: question },
    ],
    ...extra,
  };
}

async function json(r: Awaited<ReturnType<Router['route']>>) {
  expect(r.kind).toBe('response');
  if (r.kind !== 'response') throw new Error('not a response');
  expect(r.status).toBe(200);
  return JSON.parse(r.body);
}

describe('router cache hints through the simulator', () => {
  it('forwards cache_control to Anthropic and reports cache reads as cached_tokens of the whole prompt', async () => {
    served = await serve(SIM);
    router = routerFor(served);
    const system = text(2000, 's');
    const first = await json(await router.route(conversation('anthropic/claude-sonnet-4-5', system, 'one')));
    expect(first.usage.prompt_tokens_details).toBeUndefined();
    const second = await json(await router.route(conversation('anthropic/claude-sonnet-4-5', system, 'two')));
    expect(second.usage.prompt_tokens_details.cached_tokens).toBe(2000);
    // prompt_tokens is the whole input, as the simulator counted it.
    const rows = served.sim.ledger.query({ provider: 'anthropic' }).rows;
    expect(rows.at(-1)!.cacheRead).toBe(2000);
    expect(second.usage.prompt_tokens).toBe(rows.at(-1)!.tokensIn);
    expect(router.metrics()).toMatch(
      /throttlelab_router_cached_tokens_total\{provider="anthropic",key="k\d",model="claude-sonnet-4-5",kind="read"\} 2000/,
    );
  });

  it('streams the cached tokens in the usage chunk', async () => {
    served = await serve(SIM);
    router = routerFor(served);
    const system = text(1500, 't');
    await json(await router.route(conversation('anthropic/claude-sonnet-4-5', system, 'one')));
    const r = await router.route(
      conversation('anthropic/claude-sonnet-4-5', system, 'two', {
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    expect(r.kind).toBe('stream');
    if (r.kind !== 'stream') return;
    let body = r.first.join('');
    for await (const f of r.rest) body += f;
    const usage = body
      .split('\n\n')
      .map((l) => l.replace(/^data: /, ''))
      .filter((d) => d && d !== '[DONE]')
      .map((d) => JSON.parse(d))
      .find((c) => c.usage)?.usage;
    expect(usage.prompt_tokens_details.cached_tokens).toBe(1500);
  });

  it('reports OpenAI and Gemini cache hits in the same OpenAI field, cache_control left behind', async () => {
    served = await serve(SIM);
    router = routerFor(served);
    for (const model of ['openai/gpt-4o-mini', 'gemini/gemini-2.5-flash']) {
      const system = text(2500, model.slice(0, 3));
      await json(await router.route(conversation(model, system, 'one', { prompt_cache_key: 'conv-1' })));
      const again = await json(await router.route(conversation(model, system, 'two', { prompt_cache_key: 'conv-1' })));
      expect(again.usage.prompt_tokens_details.cached_tokens).toBeGreaterThanOrEqual(2048);
    }
  });

  it('keeps a conversation on the key where its prefix is warm, and spreads without affinity', async () => {
    const cachedReads = async (affinity: boolean) => {
      served = await serve(SIM);
      router = routerFor(served, { cacheAffinity: affinity });
      // Three conversations at once, each turn in another order: ranking alone spreads them
      // over the keys by what each has in flight.
      const convs = ['a', 'b', 'c'];
      for (let turn = 0; turn < 4; turn++) {
        const order = [...convs.slice(turn % 3), ...convs.slice(0, turn % 3)];
        await Promise.all(
          order.map(async (conv) =>
            json(await router!.route(conversation('anthropic/claude-sonnet-4-5', text(1500, conv), `q${turn}`))),
          ),
        );
      }
      const rows = served.sim.ledger.query({ provider: 'anthropic' }).rows;
      const metrics = router.metrics();
      await router.close();
      await served.close();
      router = undefined;
      served = undefined;
      return {
        reads: rows.filter((r) => (r.cacheRead ?? 0) > 0).length,
        writes: rows.filter((r) => (r.cacheWrite ?? 0) > 0).length,
        metrics,
      };
    };
    const on = await cachedReads(true);
    const off = await cachedReads(false);
    // With affinity, each conversation writes its prefix once and reads it on every later turn.
    expect(on.writes).toBe(3);
    expect(on.reads).toBe(9);
    expect(on.metrics).toMatch(/throttlelab_router_cache_affinity_total\{result="warm"\} 9/);
    expect(off.writes).toBeGreaterThan(on.writes);
    expect(off.metrics).not.toMatch(/cache_affinity_total/);
  });

  it('sends the turns sharing a prefix that arrive while its first is in flight to the same key', async () => {
    served = await serve(SIM);
    router = routerFor(served);
    // Another prompt first, so that the hasher is loaded and the turns below are looked up as they arrive.
    await json(await router.route(conversation('anthropic/claude-sonnet-4-5', text(1500, 'w'), 'warm-up')));
    const system = text(1500, 'g');
    await Promise.all(
      [0, 1, 2, 3, 4, 5].map(async (i) =>
        json(await router!.route(conversation('anthropic/claude-sonnet-4-5', system, `q${i}`))),
      ),
    );
    const rows = served.sim.ledger.query({ provider: 'anthropic' }).rows.slice(1);
    expect(rows).toHaveLength(6);
    expect(new Set(rows.map((r) => r.key)).size).toBe(1);
    expect(router.metrics()).toMatch(/throttlelab_router_cache_affinity_total\{result="warm"\} 5/);
  });

  it('falls back to normal ranking when the warm key has no capacity', async () => {
    served = await serve(
      SIM.replace('{ metric: requests, limit: 1000, per: 1m }', '{ metric: requests, limit: 1, per: 1m }'),
    );
    router = routerFor(served);
    const system = text(1500, 'f');
    for (let i = 0; i < 3; i++)
      await json(await router.route(conversation('anthropic/claude-sonnet-4-5', system, `q${i}`)));
    const rows = served.sim.ledger.query({ provider: 'anthropic' }).rows;
    // Each key serves one request a minute: the router read that from the headers and moved on, no 429.
    expect(rows.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(rows.map((r) => r.key)).size).toBe(3);
    expect(router.metrics()).toMatch(/throttlelab_router_cache_affinity_total\{result="fallback"\} 2/);
  });
});
