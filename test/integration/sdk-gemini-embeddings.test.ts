import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { Router } from '../../router/router.js';
import { startRouterServer, type RouterServer } from '../../router/server/http-server.js';
import { routerConfigFor } from '../helpers/router-fixture.js';
import { serve, type Served } from '../helpers/serve.js';
import { closeAfterEach } from '../helpers/close-after-each.js';

const SCENARIO = `
version: 1
name: gemini-embeddings
providers:
  - { id: openai, vendor: openai, models: [text-embedding-3-small], keys: [{ id: main, value: sk-sim-openai }] }
  - { id: gemini, vendor: gemini, models: [gemini-embedding-001], keys: [{ id: main, value: AIza-sim-gemini }] }
faults:
  - { id: limited, kind: status, match: { provider: openai }, status: 429, hint: { form: seconds, after: 30s } }
`;

let served: Served | undefined;
let router: Router | undefined;
let server: RouterServer | undefined;
closeAfterEach(() => [server, router, served]);

async function start() {
  served = await serve(SCENARIO);
  const { config, env } = routerConfigFor(served, {
    aliases: { embed: ['openai/text-embedding-3-small', 'gemini/gemini-embedding-001'] },
    routing: { weights: { cost: 0, latency: 0, reliability: 0, quality: 10, capacity: 0 } },
  });
  for (const p of config.providers) for (const m of p.models) (m as { kind: string }).kind = 'embeddings';
  router = new Router(config, { env, seed: 3 });
  for (const t of router.targets) (t.modelConfig as { quality: number }).quality = t.provider === 'openai' ? 1 : 0.5;
  server = await startRouterServer(router, { port: 0 });
  return new OpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'unused', maxRetries: 0 });
}

describe('/v1/embeddings served by Gemini (batchEmbedContents)', () => {
  it('the official OpenAI SDK (base64 by default) gets Gemini vectors after OpenAI 429s', async () => {
    const client = await start();
    const e = await client.embeddings.create({ model: 'embed', input: ['one [tl:ge1]', 'two'], dimensions: 32 });
    expect(e.data.map((d) => d.index)).toEqual([0, 1]);
    // The SDK decoded the base64 float32s the router encoded from Gemini's `values`.
    expect(e.data[1]!.embedding).toHaveLength(32);
    expect(Math.hypot(...e.data[1]!.embedding)).toBeCloseTo(1, 4);
    const rows = [...served!.sim.ledger.rowsIterator()].filter((r) => r.correlationId === 'ge1');
    expect(rows.map((r) => [r.provider, r.status, r.endpoint])).toEqual([
      ['openai', 429, 'embeddings'],
      ['gemini', 200, 'embeddings'],
    ]);
  });

  it('floats as floats, and token lists refused for Gemini as untranslatable', async () => {
    await start();
    const post = (body: unknown) =>
      fetch(`${server!.origin}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const floats = await post({ model: 'gemini/gemini-embedding-001', input: 'x', encoding_format: 'float' });
    const body = (await floats.json()) as { data: Array<{ embedding: number[] }>; usage: unknown };
    expect(body.data[0]!.embedding).toHaveLength(3072);
    const tokens = await post({ model: 'gemini/gemini-embedding-001', input: [[1, 2, 3]] });
    expect(tokens.status).toBe(400);
    expect(((await tokens.json()) as { error: { message: string } }).error.message).toMatch(/token lists/);
  });
});
