import { describe, expect, it } from 'vitest';
import { RouterConfigSchema } from '../config/schema.js';
import { createFakeClock } from '../core/fake-clock.js';
import { Router } from '../router.js';
import type { HttpResponse, Transport } from '../transport/transport.js';

// `attempt.maxBufferedBytes` bounds what answers hold in memory, not only the bytes read: a JSON
// answer's bytes, its text and the parsed answer are alive at once while it is decoded, and an
// answer's announced length counts before a byte of it arrives. Counted bytes, not RSS.

const KB = 1024;

function completion(bytes: number): string {
  const head =
    '{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"';
  const tail = '"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}';
  return head + 'x'.repeat(Math.max(0, bytes - head.length - tail.length)) + tail;
}

/** An answer of `text`, announcing its length unless told not to; `read` says when its body was read. */
function answer(text: string, o: { announce?: boolean; gate?: Promise<void>; read?: () => void } = {}): HttpResponse {
  const bytes = Buffer.from(text);
  return {
    status: 200,
    headers: {
      'content-type': 'application/json',
      ...(o.announce === false ? {} : { 'content-length': String(bytes.length) }),
    },
    body: (async function* () {
      yield bytes;
    })(),
    text: async () => text,
    async collect(onChunk) {
      o.read?.();
      await o.gate;
      onChunk(bytes);
      return [bytes];
    },
    dispose() {},
  };
}

function routerWith(send: Transport['send'], maxBufferedBytes: number) {
  const config = RouterConfigSchema.parse({
    version: 1,
    providers: [
      { id: 'a', vendor: 'openai', baseUrl: 'http://a.test/v1', keys: [{ id: 'k', env: 'K' }], models: ['m'] },
    ],
    retry: { maxAttempts: 1 },
    attempt: { maxBufferedBytes },
  });
  const transport: Transport = { send, close: async () => {} };
  return new Router(config, { env: { K: 'sk-test-key-000' }, clock: createFakeClock(0), seed: 1, transport });
}

const ask = (router: Router) => router.route({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
const status = (r: Awaited<ReturnType<typeof ask>>) => ('status' in r ? r.status : 200);

describe('the bound on answers held at once', () => {
  it('counts what decoding an answer holds, not only its bytes', async () => {
    // 400 KB read fit a 1 MB bound; decoded and parsed beside its bytes they do not.
    for (const announce of [true, false]) {
      const router = routerWith(async () => answer(completion(400 * KB), { announce }), 1024 * KB);
      expect(status(await ask(router)), `announced: ${announce}`).toBeGreaterThanOrEqual(500);
      await router.close();
    }
    const small = routerWith(async () => answer(completion(300 * KB)), 1024 * KB);
    expect(status(await ask(small))).toBe(200);
    await small.close();
  });

  it('refuses a second answer while a first one holds the budget, before reading a byte of it', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let reads = 0;
    const read = () => reads++;
    const router = routerWith(async () => answer(completion(200 * KB), { gate, read }), 1024 * KB);
    const first = ask(router);
    await new Promise((r) => setTimeout(r, 0));
    expect(reads).toBe(1);
    // 600 KB held for the first; 600 more for the second would pass the 1 MB bound.
    expect(status(await ask(router))).toBeGreaterThanOrEqual(500);
    expect(reads).toBe(1);
    open();
    expect(status(await first)).toBe(200);
    // Released: the next fits again.
    const again = ask(router);
    expect(status(await again)).toBe(200);
    await router.close();
  });
});
