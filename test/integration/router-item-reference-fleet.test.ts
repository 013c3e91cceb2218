import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { Router } from '../../router/router.js';
import { startRouterServer, type RouterServer } from '../../router/server/http-server.js';
import type { RedisStore } from '../../router/state/redis-store.js';
import { dropPrefix, SHARED_REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { routerFor } from '../helpers/router-fixture.js';
import { serve, type Served } from '../helpers/serve.js';

// Two replicas behind a load balancer: the AI SDK's step 2 references step 1's items by id, and
// lands on the other replica. With a Redis store the items are the fleet's, not one process's.

const YAML = `
version: 1
name: item-reference-fleet
providers:
  - { id: gemini, vendor: gemini, models: [gemini-2.5-flash], keys: [{ id: main, value: sk-gemini-sim }], latency: { completionTokens: 3 }, toolCallRate: 1 }
`;

let served: Served | undefined;
let routers: Router[] = [];
let servers: RouterServer[] = [];
const prefixes: string[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(routers.map((r) => r.close()));
  await served?.close();
  for (const p of prefixes.splice(0)) await dropPrefix(SHARED_REDIS_URL, p);
  [served, routers, servers] = [undefined, [], []];
});

async function fleet(items: object = {}): Promise<{ origins: string[]; prefix: string }> {
  served = await serve(YAML);
  const keyPrefix = uniquePrefix('items-fleet');
  prefixes.push(keyPrefix);
  const config = {
    aliases: { agent: ['gemini/gemini-2.5-flash'] },
    store: { kind: 'redis', url: SHARED_REDIS_URL, keyPrefix, timeout: '500ms' },
    server: { responseItems: items },
  };
  routers = ['a', 'b'].map((replica, i) => routerFor(served!, config, { replica, seed: 10 + i }));
  for (const r of routers) expect(await (r.store as RedisStore).joined(5000)).toBe(true);
  servers = await Promise.all(routers.map((r) => startRouterServer(r, { port: 0 })));
  return { origins: servers.map((s) => s.origin), prefix: keyPrefix };
}

/** A fetch that sends each request to the next replica in turn, as a round-robin balancer does. */
function roundRobin(origins: string[]): typeof fetch {
  let n = 0;
  return (input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const to = new URL(origins[n++ % origins.length]!);
    url.host = to.host;
    return fetch(url, init);
  };
}

const weather = tool({
  description: 'The weather in a city',
  inputSchema: jsonSchema<{ city: string }>({
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
  }),
  execute: async ({ city }) => ({ city, temp: 3 }),
});

/** Every key under `prefix`: its value (as text) and its TTL in ms. */
async function dump(prefix: string): Promise<Array<{ key: string; value: string; ttlMs: number }>> {
  const r = new Redis(SHARED_REDIS_URL);
  try {
    const out = [];
    for (const key of await r.keys(`${prefix}*`)) {
      const type = await r.type(key);
      const value =
        type === 'hash' ? await r.hgetall(key) : type === 'zset' ? await r.zrange(key, '0', '-1') : await r.get(key);
      out.push({ key, value: JSON.stringify(value), ttlMs: await r.pttl(key) });
    }
    return out;
  } finally {
    r.disconnect();
  }
}

describe('item_reference across a fleet sharing Redis', () => {
  it('runs the AI SDK tool loop with each step on the other replica', async () => {
    const { origins } = await fleet();
    const openai = createOpenAI({ baseURL: `${origins[0]}/v1`, apiKey: 'client-a', fetch: roundRobin(origins) });
    const r = await generateText({
      model: openai('agent'),
      prompt: 'weather in Oslo?',
      tools: { weather },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(r.steps.length).toBeGreaterThanOrEqual(2);
    expect(r.steps[0]!.toolCalls.map((c) => c.toolName)).toEqual(['weather']);
  });

  it('keeps the items under the hashed caller with a TTL and a per-caller cap, never the key', async () => {
    const { origins, prefix } = await fleet({ sharedTtl: '10m', maxPerCaller: 2 });
    const [a, b] = origins.map((o) => new OpenAI({ baseURL: `${o}/v1`, apiKey: 'client-secret-key', maxRetries: 0 }));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await a!.responses.create({ model: 'agent', input: `hi ${i}` })).output[0]!.id!);
    // The newest two are the fleet's; the oldest went out with the cap.
    const ref = (id: string) => [
      { type: 'item_reference' as const, id },
      { role: 'user' as const, content: 'and?' },
    ];
    expect((await b!.responses.create({ model: 'agent', input: ref(ids[2]!) })).status).toBe('completed');
    expect(await b!.responses.create({ model: 'agent', input: ref(ids[0]!) }).catch((e: unknown) => e)).toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    // Another caller cannot reach them from either replica.
    const other = new OpenAI({ baseURL: `${origins[1]}/v1`, apiKey: 'client-other', maxRetries: 0 });
    expect(
      await other.responses.create({ model: 'agent', input: ref(ids[2]!) }).catch((e: unknown) => e),
    ).toBeInstanceOf(OpenAI.NotFoundError);
    const kept = await dump(prefix);
    expect(kept.map((k) => k.value).join('\n')).not.toContain('client-secret-key');
    const items = kept.filter((k) => k.key.startsWith(`${prefix}items`));
    expect(items.map((k) => k.key.slice(prefix.length).split(':')[0]).sort()).toEqual(['items', 'items-order']);
    expect(items.find((k) => k.key.startsWith(`${prefix}items:`))!.value).toContain(ids[2]!);
    for (const k of items) {
      expect(k.ttlMs).toBeGreaterThan(0);
      expect(k.ttlMs).toBeLessThanOrEqual(600_000);
    }
  });
});
