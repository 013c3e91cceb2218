import { describe, expect, it } from 'vitest';
import type { HttpCall } from '../adapters/adapter.js';
import { RouterConfigSchema } from '../config/schema.js';
import { Cancel, type AbortLike } from '../core/cancel.js';
import { createFakeClock } from '../core/fake-clock.js';
import { Router } from '../router.js';
import { takingAbortLike, type HttpResponse, type Transport } from '../transport/transport.js';

// A Transport is public: one written against AbortSignal (it hands the signal to fetch, say) must
// still be handed a real AbortSignal, while a `send` made by `takingAbortLike` (the router's own)
// takes the attempt's Cancel.

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
  return (_call: HttpCall, signal: AbortLike): Promise<HttpResponse> => {
    seen.push(signal);
    return new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
  };
}

/** What `send` was handed for one request, and whether it aborted with the client. */
async function handed(transport: Transport, seen: unknown[]) {
  const router = routerWith(transport);
  const client = new AbortController();
  const routed = router.route({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { signal: client.signal });
  await new Promise((r) => setTimeout(r, 0));
  expect(seen).toHaveLength(1);
  const signal = seen[0] as AbortLike;
  const before = signal.aborted;
  client.abort();
  await routed.catch(() => {});
  await router.close();
  return { signal, before, after: signal.aborted };
}

class SignalTransport implements Transport {
  constructor(readonly seen: unknown[]) {}
  send(call: HttpCall, signal: AbortSignal): Promise<HttpResponse> {
    return waitingSend(this.seen)(call, signal);
  }
  async close() {}
}

describe('the signal a transport is handed', () => {
  it('is a real AbortSignal that aborts with the request for a send written against AbortSignal', async () => {
    const seen: unknown[] = [];
    const { signal, before, after } = await handed({ send: waitingSend(seen), close: async () => {} }, seen);
    expect(signal).toBeInstanceOf(AbortSignal);
    expect([before, after]).toEqual([false, true]);
  });

  it('is a real AbortSignal for a class that implements Transport', async () => {
    const seen: unknown[] = [];
    const { signal, after } = await handed(new SignalTransport(seen), seen);
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(after).toBe(true);
  });

  it("is the attempt's Cancel itself for a send made by takingAbortLike", async () => {
    const seen: unknown[] = [];
    const { signal, before, after } = await handed(
      { send: takingAbortLike(waitingSend(seen)), close: async () => {} },
      seen,
    );
    expect(signal).toBeInstanceOf(Cancel);
    expect([before, after]).toEqual([false, true]);
  });

  it('is a real AbortSignal again for a transport that spreads a marked one and brings its own send', async () => {
    const seen: unknown[] = [];
    const marked: Transport = { send: takingAbortLike(waitingSend([])), close: async () => {} };
    const wrapped: Transport = { ...marked, send: (call, signal: AbortSignal) => waitingSend(seen)(call, signal) };
    const { signal, after } = await handed(wrapped, seen);
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(after).toBe(true);
  });
});
