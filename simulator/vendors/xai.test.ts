import { describe, expect, it } from 'vitest';
import { collectReply } from '../../test/helpers/collect-reply.js';
import { scenarioFrom } from '../../test/helpers/scenario.js';
import { createFakeClock } from '../core/fake-clock.js';
import { createSimulator } from '../simulator.js';

const YAML = `
version: 1
name: xai-responses
providers:
  - { id: xai, vendor: xai, models: [grok-4], keys: [{ id: main, value: xai-key }], quotas: [{ metric: requests, limit: 1, per: 1m }], latency: { completionTokens: 4 } }
`;

function setup() {
  const clock = createFakeClock(Date.UTC(2026, 0, 1));
  const sim = createSimulator(scenarioFrom(YAML), { seed: 3, clock });
  const post = (body: unknown, key = 'xai-key') =>
    collectReply(
      sim.handle({
        method: 'POST',
        url: '/xai/v1/responses',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify(body),
      }),
      clock,
    );
  return { sim, post };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("xAI's Responses API", () => {
  it('answers a response whose id is a UUID and whose message item is msg_ and the same UUID', async () => {
    const { post, sim } = setup();
    const res = await post({ model: 'grok-4', input: 'hello' });
    expect(res.status).toBe(200);
    const body = JSON.parse(res.body);
    expect(body).toMatchObject({ object: 'response', status: 'completed', model: 'grok-4' });
    expect(body.id).toMatch(UUID);
    expect(body.output[0].id).toBe(`msg_${body.id}`);
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(sim.ledger.row(0)).toMatchObject({ endpoint: 'responses', status: 200 });
  });

  it("answers a spent quota on /v1/responses with xAI's flat 429 and no rate-limit headers", async () => {
    const { post } = setup();
    await post({ model: 'grok-4', input: 'a' });
    const res = await post({ model: 'grok-4', input: 'b' });
    expect(res.status).toBe(429);
    const body = JSON.parse(res.body);
    expect(body.code).toBe('Some resource has been exhausted');
    expect(body.error).toMatch(/^Too many requests for team [0-9a-f-]{36} and model grok-4/);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
  });

  it("refuses a malformed input and a wrong key with xAI's 400 invalid-argument shape", async () => {
    const { post } = setup();
    const empty = await post({ model: 'grok-4', input: [] });
    expect(empty.status).toBe(400);
    expect(JSON.parse(empty.body).code).toBe('Client specified an invalid argument');
    const wrong = await post({ model: 'grok-4', input: 'a' }, 'nope');
    expect(wrong.status).toBe(400);
    expect(JSON.parse(wrong.body).error).toMatch(/^Incorrect API key provided/);
  });
});
