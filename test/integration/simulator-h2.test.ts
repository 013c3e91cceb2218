import { connect as connectTcp } from 'node:net';
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { afterEach, describe, expect, it } from 'vitest';
import { h2Request } from '../helpers/h2-request.js';
import { chatCall } from '../helpers/scenario.js';
import { serve, type Served } from '../helpers/serve.js';

const YAML = `
version: 1
name: h2
simulator: { maxBodyBytes: 2048 }
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-openai }], quotas: [{ metric: requests, limit: 50, per: 1h }], latency: { completionTokens: 4 } }
`;
const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection'];

let served: Served | undefined;
let session: ClientHttp2Session | undefined;
afterEach(async () => {
  session?.destroy();
  session = undefined;
  expect(served?.errors ?? []).toEqual([]);
  await served?.close();
  served = undefined;
});

async function start(faults = ''): Promise<Served> {
  served = await serve(faults ? `${YAML}faults:\n${faults}` : YAML);
  session = connect(served.origin);
  session.on('error', () => {});
  return served;
}

async function waitFor(check: () => boolean, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('simulator over cleartext HTTP/2 (prior knowledge)', () => {
  it('answers OpenAI chat on the port that serves HTTP/1.1, with the same body shape', async () => {
    const s = await start();
    const h1 = await fetch(s.origin + chatCall('openai').url, chatCall('openai'));
    const h2 = await h2Request(session!, chatCall('openai'));
    expect([h1.status, h2.status]).toEqual([200, 200]);
    const [a, b] = [await h1.json(), JSON.parse(h2.body.toString())];
    expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
    expect(b.choices[0].message.content.trim().split(/\s+/)).toHaveLength(4);
    expect(s.sim.ledger.size).toBe(2);
  });

  it('streams OpenAI SSE to [DONE], carrying no connection-specific header', async () => {
    const s = await start();
    const a = await h2Request(session!, chatCall('openai', { stream: true }));
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toMatch(/^text\/event-stream/);
    for (const name of HOP_BY_HOP) expect(a.headers[name]).toBeUndefined();
    const text = a.body.toString();
    expect(text.match(/^data: \{/gm)!.length).toBeGreaterThanOrEqual(4);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(s.sim.ledger.row(0)).toMatchObject({ status: 200, stream: true });
  });

  it('answers a 429 with its rate-limit headers and retry-after intact', async () => {
    await start(
      `  - { id: limit, kind: status, match: { provider: openai }, status: 429, hint: { form: seconds, after: 7s } }`,
    );
    const a = await h2Request(session!, chatCall('openai'));
    expect(a.status).toBe(429);
    expect(a.headers['retry-after']).toBe('7');
    expect(a.headers['x-ratelimit-limit-requests']).toBe('50');
    expect(JSON.parse(a.body.toString()).error.code).toBe('rate_limit_exceeded');
  });

  it('refuses a body over maxBodyBytes as it does over HTTP/1.1', async () => {
    const s = await start();
    const big = chatCall('openai', { prompt: 'x'.repeat(4096) });
    const h1 = await fetch(s.origin + big.url, big);
    const h2 = await h2Request(session!, big);
    expect(h2.status).toBe(h1.status);
    expect(h2.status).toBeGreaterThanOrEqual(400);
  });

  it('records a client that cancels its stream of a hanging request, and serves the session on', async () => {
    const s = await start(`  - { id: hang, kind: hang, match: { provider: openai, firstN: 1 } }`);
    const c = chatCall('openai');
    const stream = session!.request({ ':method': c.method, ':path': c.url, ...c.headers });
    stream.on('error', () => {});
    stream.end(c.body);
    await waitFor(() => s.sim.ledger.inFlight === 1);
    stream.close(constants.NGHTTP2_CANCEL);
    await waitFor(() => s.sim.ledger.row(0)?.endAt !== null);
    expect(s.sim.ledger.row(0)).toMatchObject({ status: 0, end: 'client-abort', firstByteAt: null });
    expect((await h2Request(session!, c)).status).toBe(200);
  });

  it('resets the stream alone on a reset fault: the next request on the session is answered', async () => {
    const s = await start(`  - { id: rst, kind: reset, match: { provider: openai, firstN: 1 } }`);
    await expect(h2Request(session!, chatCall('openai'))).rejects.toThrow(/INTERNAL_ERROR/);
    expect(s.sim.ledger.row(0)).toMatchObject({ status: 0, end: 'reset' });
    expect((await h2Request(session!, chatCall('openai'))).status).toBe(200);
  });

  it('holds a stream with keep-alive lines, headers first', async () => {
    await start(`  - { id: hold, kind: keep-alive, match: { provider: openai }, holdFor: 200ms, interval: 100ms }`);
    const a = await h2Request(session!, chatCall('openai', { stream: true }));
    const text = a.body.toString();
    expect(text.startsWith(': keep-alive\n\n: keep-alive\n\ndata: ')).toBe(true);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('serves the control API, its loopback guard reading :authority', async () => {
    const s = await start();
    const health = await h2Request(session!, { method: 'GET', url: '/_throttlelab/health' });
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body.toString())).toMatchObject({ status: 'ok', scenario: 'h2' });
    const events = session!.request({ ':method': 'GET', ':path': '/_throttlelab/events' });
    let first = '';
    events.setEncoding('utf8');
    await new Promise<void>((resolve) =>
      events.on('data', (d: string) => {
        first += d;
        if (first.includes('event: hello')) resolve();
      }),
    );
    events.close();
    expect(s.errors).toEqual([]);
  });

  it('ends a stream still hanging at shutdown, recording it, and closes', async () => {
    const s = await start(`  - { id: hang, kind: hang, match: { provider: openai } }`);
    const pending = h2Request(session!, chatCall('openai')).catch((e: Error) => e);
    await waitFor(() => s.sim.ledger.inFlight === 1);
    await s.close();
    served = undefined;
    expect(await pending).toBeInstanceOf(Error);
    expect(s.sim.ledger.row(0)).toMatchObject({ status: 0, end: 'shutdown' });
    expect(s.errors).toEqual([]);
  });

  it('destroys a session that sends garbage after the preface, and lives on for both protocols', async () => {
    const s = await start();
    const { port } = new URL(s.origin);
    const closed = await new Promise<string>((resolve) => {
      const raw = connectTcp(Number(port), '127.0.0.1', () =>
        raw.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.alloc(64, 0xff)])),
      );
      raw.on('error', () => {});
      raw.on('close', () => resolve('closed'));
      raw.resume();
    });
    expect(closed).toBe('closed');
    expect((await h2Request(session!, chatCall('openai'))).status).toBe(200);
    expect((await fetch(s.origin + chatCall('openai').url, chatCall('openai'))).status).toBe(200);
  });
});
