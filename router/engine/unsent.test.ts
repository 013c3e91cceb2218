import { describe, expect, it } from 'vitest';
import { RouterConfigSchema } from '../config/schema.js';
import { createFakeClock } from '../core/fake-clock.js';
import { Router } from '../router.js';
import type { Transport } from '../transport/transport.js';

// Building a request for a provider is our own work on the client's body. If it throws, no
// provider did anything wrong: nothing is sent, no circuit moves, and the client gets a 400 at once.

function routerWithThrowingAdapter() {
  let sent = 0;
  const transport: Transport = {
    send: async () => {
      sent++;
      throw new Error('never called');
    },
    close: async () => {},
  };
  const config = RouterConfigSchema.parse({
    version: 1,
    providers: [
      { id: 'a', vendor: 'openai', baseUrl: 'http://a.test/v1', keys: [{ id: 'k', env: 'K' }], models: ['m'] },
    ],
  });
  const router = new Router(config, { env: { K: 'sk-test-key-000' }, clock: createFakeClock(0), seed: 1, transport });
  for (const t of router.targets)
    t.adapter = {
      ...t.adapter,
      buildRequest: () => {
        throw new RangeError('Maximum call stack size exceeded');
      },
    };
  return { router, sent: () => sent };
}

describe('a request that cannot be built for a provider', () => {
  it('gets 400 at once, sends nothing and opens no circuit, however often it comes', async () => {
    const { router, sent } = routerWithThrowingAdapter();
    for (let i = 0; i < 5; i++) {
      const r = await router.route({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
      expect(r).toMatchObject({ kind: 'response', status: 400, attempts: [] });
      expect(JSON.parse((r as { body: string }).body).error.message).toBe(
        'The request could not be translated for a: Maximum call stack size exceeded.',
      );
    }
    expect(sent()).toBe(0);
    expect(router.metrics()).not.toMatch(/circuit_open\{[^}]*\} (1|0\.5)/);
    expect(router.metrics()).not.toContain('attempts_total{');
  });
});
