import { describe, expect, it } from 'vitest';
import { RouterConfigSchema } from '../config/schema.js';
import { Cancel } from '../core/cancel.js';
import { createFakeClock } from '../core/fake-clock.js';
import { Router } from '../router.js';
import type { Transport } from '../transport/transport.js';

// A Transport is public: one written against AbortSignal (it hands the signal to fetch, say) must
// still be handed a real AbortSignal, while the router's own transports take the attempt's Cancel.

function routerWith(transport: Transport) {
  const config = RouterConfigSchema.parse({
    version: 1,
    providers: [
      { id: 'a', vendor: 'openai', baseUrl: 'http://a.test/v1', keys: [{ id: 'k', env: 'K' }], models: ['m'] },
    ],
  });
  return new Router(config, { env: { K: 'sk-test-key-000' }, clock: createFakeClock(0), seed: 1, transport });
}

/** A send that waits until its signal aborts, recording what it was handed. */
function waitingSend(seen: unknown[]) {
  return (_call: unknown, signal: { aborted: boolean; reason: unknown; addEventListener: Function }) => {
    seen.push(signal);
    return new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
    );
  };
}

describe('the signal a transport is handed', () => {
  it('is a real AbortSignal that aborts with the request when the transport does not take AbortLike', async () => {
    const seen: unknown[] = [];
    const router = routerWith({ send: waitingSend(seen), close: async () => {} });
    const client = new AbortController();
    const routed = router.route({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { signal: client.signal });
    await new Promise((r) => setTimeout(r, 0));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(AbortSignal);
    expect((seen[0] as AbortSignal).aborted).toBe(false);
    client.abort();
    await routed.catch(() => {});
    expect((seen[0] as AbortSignal).aborted).toBe(true);
    await router.close();
  });

  it("is the attempt's Cancel itself when the transport takes AbortLike", async () => {
    const seen: unknown[] = [];
    const router = routerWith({ takesAbortLike: true, send: waitingSend(seen), close: async () => {} });
    const client = new AbortController();
    const routed = router.route({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { signal: client.signal });
    await new Promise((r) => setTimeout(r, 0));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(Cancel);
    client.abort();
    await routed.catch(() => {});
    expect((seen[0] as Cancel).aborted).toBe(true);
    await router.close();
  });
});
