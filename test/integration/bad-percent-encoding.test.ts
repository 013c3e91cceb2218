import { afterEach, describe, expect, it } from 'vitest';
import { chatCall } from '../helpers/scenario.js';
import { serve, type Served } from '../helpers/serve.js';

const YAML = `
version: 1
name: bad-percent-encoding
providers:
  - { id: gemini, vendor: gemini, models: [gemini-2.5-flash], keys: [{ id: main, value: sk-gemini }] }
  - { id: bedrock, vendor: bedrock, models: [anthropic.claude-3-5-haiku-20241022-v1:0], keys: [{ id: main, value: "AKIASIMBEDROCK0001:sim-secret" }] }
  - { id: vertex, vendor: vertex-ai, models: [gemini-2.5-flash], keys: [{ id: main, value: ya29.sim-vertex }] }
  - { id: azure, vendor: azure-openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-azure-openai }] }
`;

const BAD = ['%E0%A4%A', '%ZZ', '%', '%C0%AF'];

let served: Served | undefined;
afterEach(async () => {
  expect(served?.errors ?? []).toEqual([]);
  await served?.close();
  served = undefined;
});

describe('a path segment that is not valid percent-encoding', () => {
  it('is refused with 400 and a hint by DELETE /faults/<id>', async () => {
    served = await serve(YAML);
    for (const id of BAD) {
      const res = await fetch(`${served.origin}/_throttlelab/faults/${id}`, { method: 'DELETE' });
      const body = (await res.json()) as { error: { message: string } };
      expect(res.status, id).toBe(400);
      expect(body.error.message).toContain('not valid percent-encoding');
      expect(body.error.message).not.toContain('throttlelab bug');
    }
  });

  it('is answered as the vendor answers an unknown model, never 500, in a model path', async () => {
    served = await serve(YAML);
    for (const [vendor, model] of [
      ['gemini', undefined],
      ['bedrock', 'anthropic.claude-3-5-haiku-20241022-v1:0'],
      ['vertex-ai', undefined],
      ['azure-openai', undefined],
    ] as const) {
      const c = chatCall(vendor, { key: vendor === 'vertex-ai' ? 'ya29.sim-vertex' : undefined, model });
      for (const bad of BAD) {
        const url = c.url.replace(
          vendor === 'bedrock' ? encodeURIComponent(model!) : /gemini-2\.5-flash|gpt-4o-mini/,
          bad,
        );
        const res = await fetch(served.origin + url, { method: c.method, headers: c.headers, body: c.body });
        expect(res.status, `${vendor} ${url}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${vendor} ${url}`).toBeLessThan(500);
      }
    }
  });
});
