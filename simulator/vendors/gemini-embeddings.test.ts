import { describe, expect, it } from 'vitest';
import { collectReply } from '../../test/helpers/collect-reply.js';
import { scenarioFrom } from '../../test/helpers/scenario.js';
import { createFakeClock } from '../core/fake-clock.js';
import { createSimulator } from '../simulator.js';

const YAML = `
version: 1
name: gemini-embeddings
providers:
  - { id: gemini, vendor: gemini, models: [gemini-embedding-001, text-embedding-004], keys: [{ id: main, value: AIza-sim }], quotas: [{ metric: requests, limit: 3, per: 1m }, { metric: tokens, limit: 1000, per: 1m }] }
`;

function setup() {
  const clock = createFakeClock(Date.UTC(2026, 0, 1));
  const sim = createSimulator(scenarioFrom(YAML), { seed: 3, clock });
  const post = (url: string, body: unknown) =>
    collectReply(
      sim.handle({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', 'x-goog-api-key': 'AIza-sim' },
        body: JSON.stringify(body),
      }),
      clock,
    );
  return { sim, post };
}

const content = (text: string) => ({ parts: [{ text }] });

describe('Gemini embeddings', () => {
  it('embedContent answers one unit vector of the model width, charging input tokens only', async () => {
    const { sim, post } = setup();
    const res = await post('/gemini/v1beta/models/text-embedding-004:embedContent', { content: content('abcd efgh') });
    expect(res.status).toBe(200);
    const body = JSON.parse(res.body);
    expect(body.embedding.values).toHaveLength(768);
    expect(Math.hypot(...body.embedding.values)).toBeCloseTo(1, 5);
    expect(sim.ledger.row(0)).toMatchObject({ endpoint: 'embeddings', tokensOut: 0 });
    expect(sim.ledger.row(0)!.tokensIn).toBeGreaterThan(0);
  });

  it('batchEmbedContents answers one vector per request in order, at the asked width', async () => {
    const { post } = setup();
    const res = await post('/gemini/v1beta/models/gemini-embedding-001:batchEmbedContents', {
      requests: ['a', 'b', 'c'].map((t) => ({
        model: 'models/gemini-embedding-001',
        content: content(t),
        outputDimensionality: 16,
      })),
    });
    const body = JSON.parse(res.body);
    expect(body.embeddings).toHaveLength(3);
    expect(body.embeddings[2].values).toHaveLength(16);
    expect(body.embeddings[0].values).not.toEqual(body.embeddings[1].values);
  });

  it('refuses an empty or too large batch and a width past the model in Google error shape; limits with 429', async () => {
    const { post } = setup();
    const empty = await post('/gemini/v1beta/models/gemini-embedding-001:batchEmbedContents', { requests: [] });
    expect(empty.status).toBe(400);
    expect(JSON.parse(empty.body).error.status).toBe('INVALID_ARGUMENT');
    const many = await post('/gemini/v1beta/models/gemini-embedding-001:batchEmbedContents', {
      requests: Array.from({ length: 101 }, () => ({ content: content('x') })),
    });
    expect(JSON.parse(many.body).error.message).toMatch(/at most 100 requests can be in one batch/);
    const wide = await post('/gemini/v1beta/models/text-embedding-004:embedContent', {
      content: content('x'),
      outputDimensionality: 1e9,
    });
    expect(wide.status).toBe(400);
    // Three requests a minute (refused ones do not count, as Gemini's): the fourth is refused.
    for (let i = 0; i < 3; i++)
      expect(
        (await post('/gemini/v1beta/models/text-embedding-004:embedContent', { content: content('x') })).status,
      ).toBe(200);
    const limited = await post('/gemini/v1beta/models/text-embedding-004:embedContent', { content: content('x') });
    expect(limited.status).toBe(429);
    expect(JSON.parse(limited.body).error.status).toBe('RESOURCE_EXHAUSTED');
  });
});
