import { afterEach, describe, expect, it } from 'vitest';
import { chatCall } from '../helpers/scenario.js';
import { serve, type Served } from '../helpers/serve.js';

const YAML = `
version: 1
name: long-word
simulator: { maxBodyBytes: 4000000 }
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-openai }], latency: { completionTokens: 4 } }
`;

let served: Served | undefined;
afterEach(async () => {
  expect(served?.errors ?? []).toEqual([]);
  await served?.close();
  served = undefined;
});

describe('a prompt of one long word', () => {
  it('is answered with its token count while health answers, given a 1 MB word', async () => {
    served = await serve(YAML);
    let seed = 7;
    const letter = () => String.fromCharCode(97 + ((seed = (seed * 1103515245 + 12345) >>> 0) % 26));
    const word = Array.from({ length: 1 << 20 }, letter).join('');
    const c = chatCall('openai', { key: 'sk-openai', prompt: word });
    const t0 = Date.now();
    const answer = fetch(served.origin + c.url, { method: c.method, headers: c.headers, body: c.body });
    const health = await fetch(`${served.origin}/_throttlelab/health`);
    expect(health.status).toBe(200);
    const res = await answer;
    const body = (await res.json()) as { usage: { prompt_tokens: number } };
    // Before: minutes of one quadratic merge. A generous bound for a busy machine; the work
    // itself is bounded structurally in simulator/engine/long-piece.test.ts.
    expect(Date.now() - t0).toBeLessThan(8000);
    expect(res.status).toBe(200);
    // A random lowercase word tokenizes at about 1.9 characters a token.
    expect(body.usage.prompt_tokens / word.length).toBeGreaterThan(0.45);
    expect(body.usage.prompt_tokens / word.length).toBeLessThan(0.6);
  });
});
