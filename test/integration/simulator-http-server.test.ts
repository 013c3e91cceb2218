import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { chatCall } from '../helpers/scenario.js';
import { serve, type Served } from '../helpers/serve.js';

const YAML = `
version: 1
name: http
simulator: { maxBodyBytes: 2048 }
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-openai }], quotas: [{ metric: requests, limit: 50, per: 1h }], latency: { completionTokens: 4 } }
  - { id: deepseek, vendor: deepseek, models: [deepseek-chat], keys: [{ id: main, value: sk-deepseek }], quotas: [{ metric: concurrency, limit: 5 }], latency: { ttft: 300ms, completionTokens: 4 } }
  - { id: anthropic, vendor: anthropic, models: [claude-haiku-4-5], keys: [{ id: main, value: sk-anthropic }], latency: { completionTokens: 4 } }
`;

let served: Served | undefined;
afterEach(async () => {
  expect(served?.errors ?? []).toEqual([]);
  await served?.close();
  served = undefined;
});

function post(s: Served, c: ReturnType<typeof chatCall>, signal?: AbortSignal) {
  return fetch(s.origin + c.url, { method: c.method, headers: c.headers, body: c.body, signal });
}

async function waitFor(check: () => boolean, ms = 2000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

function rawRequest(origin: string, text: string | Buffer): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    let out = '';
    socket.on('data', (d) => (out += d.toString()));
    socket.on('close', () => resolve(out));
    socket.on('error', () => resolve(out));
    setTimeout(() => socket.destroy(), 500);
  });
}

describe('simulator HTTP server', () => {
  it('never lets concurrent requests overshoot a limit', async () => {
    served = await serve(YAML);
    const statuses = await Promise.all(
      Array.from({ length: 120 }, () => post(served!, chatCall('openai', { key: 'sk-openai' })).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    expect(statuses.filter((s) => s === 429)).toHaveLength(70);
  });

  it('caps DeepSeek concurrency, releasing slots as answers end', async () => {
    served = await serve(YAML);
    const first = await Promise.all(
      Array.from({ length: 12 }, () =>
        post(served!, chatCall('deepseek')).then(async (r) => (await r.text(), r.status)),
      ),
    );
    expect(first.filter((s) => s === 200)).toHaveLength(5);
    expect(first.filter((s) => s === 429)).toHaveLength(7);
    expect((await post(served, chatCall('deepseek'))).status).toBe(200);
  });

  it('answers an oversized body with 413 in the vendor shape', async () => {
    served = await serve(YAML);
    const res = await post(served, chatCall('anthropic', { prompt: 'x'.repeat(5000) }));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
  });

  it('survives hostile input and keeps serving', async () => {
    served = await serve(YAML);
    expect(await rawRequest(served.origin, 'NOT HTTP AT ALL\r\n\r\n')).toMatch(/^HTTP\/1.1 400/);
    const binary = Buffer.concat([
      Buffer.from(
        'POST /openai/v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer sk-openai\r\ncontent-length: 4\r\n\r\n',
      ),
      Buffer.from([0, 0xff, 0xfe, 0x7b]),
    ]);
    expect(await rawRequest(served.origin, binary)).toMatch(/^HTTP\/1.1 400/);
    const bodies = [
      'null',
      '[]',
      '"text"',
      '{"model":{"a":1},"messages":"x"}',
      JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: [{ nested: [[[[]]]] }] }] }),
      '\u00ff\u00fe',
    ];
    for (const body of bodies) {
      const res = await post(served, { ...chatCall('openai'), body });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    for (const url of [
      '/openai/../../etc/passwd',
      '/%E0%A4%A',
      '/openai/v1/chat/completions?%%%',
      '//',
      '/_throttlelab/../openai',
    ]) {
      const res = await fetch(served.origin + url, { method: 'POST', body: '{}' }).catch(() => undefined);
      expect(res === undefined || res.status < 500).toBe(true);
    }
    expect((await post(served, chatCall('openai'))).status).toBe(200);
  });

  it('records a client that gives up on a hanging request', async () => {
    served = await serve(`${YAML}
faults:
  - { id: hang, kind: hang, match: { provider: openai } }`);
    const ac = new AbortController();
    let abortedAt = Infinity;
    setTimeout(() => {
      abortedAt = served!.sim.clock.now();
      ac.abort();
    }, 150);
    await expect(post(served, chatCall('openai'), ac.signal)).rejects.toThrow();
    await waitFor(() => served!.sim.ledger.row(0)?.endAt !== null);
    const row = served.sim.ledger.row(0)!;
    expect(row).toMatchObject({ status: 0, end: 'client-abort', firstByteAt: null });
    // It ends when the client gives up, never before (however late the request arrived).
    expect(row.endAt!).toBeGreaterThanOrEqual(abortedAt);
  });

  it('resets the connection', async () => {
    served = await serve(`${YAML}
faults:
  - { id: rst, kind: reset, match: { provider: openai } }`);
    await expect(post(served, chatCall('openai'))).rejects.toThrow();
    expect(served.sim.ledger.row(0)).toMatchObject({ status: 0, end: 'reset' });
  });

  it('holds a request with keep-alive lines in real time, flushing headers first', async () => {
    served = await serve(`${YAML}
faults:
  - { id: hold, kind: keep-alive, match: { provider: deepseek }, holdFor: 300ms, interval: 100ms }`);
    const t0 = Date.now();
    const res = await post(served, chatCall('deepseek', { stream: true }));
    const headersAfter = Date.now() - t0;
    const text = await res.text();
    expect(headersAfter).toBeLessThan(250);
    expect(text.startsWith(': keep-alive\n\n: keep-alive\n\n: keep-alive\n\ndata: ')).toBe(true);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(600);
  });
});

describe('control API', () => {
  it('reports health and endpoints', async () => {
    served = await serve(YAML, 5);
    const health = await (await fetch(`${served.origin}/_throttlelab/health`)).json();
    expect(health).toMatchObject({ status: 'ok', scenario: 'http', seed: 5, attempts: 0 });
    const { providers } = await (await fetch(`${served.origin}/_throttlelab/providers`)).json();
    expect(providers.map((p: { baseUrl: string }) => p.baseUrl)).toEqual([
      `${served.origin}/openai/v1`,
      served.origin + '/deepseek',
      `${served.origin}/anthropic`,
    ]);
  });

  it('queries and exports the ledger', async () => {
    served = await serve(YAML);
    await post(served, chatCall('openai', { prompt: 'a [tl:one]' }));
    await post(served, chatCall('anthropic', { prompt: 'b [tl:two]' }));
    await post(served, chatCall('anthropic', { key: 'sk-bad' }));
    const q = await (await fetch(`${served.origin}/_throttlelab/ledger?provider=anthropic&status=200`)).json();
    expect(q.total).toBe(1);
    expect(q.rows[0]).toMatchObject({ correlationId: 'two', key: 'main' });
    expect((await fetch(`${served.origin}/_throttlelab/ledger?status=abc`)).status).toBe(400);
    const jsonl = await (await fetch(`${served.origin}/_throttlelab/ledger.jsonl`)).text();
    const lines = jsonl
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.seq)).toEqual([0, 1, 2]);
    expect(jsonl).not.toContain('sk-');
  });

  it('adds, lists and removes live faults, rejecting bad ones with issues', async () => {
    served = await serve(YAML);
    const json = { 'content-type': 'application/json' };
    const bad = await fetch(`${served.origin}/_throttlelab/faults`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ id: 'x', kind: 'status' }),
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.issues.length).toBeGreaterThan(0);
    expect(
      (await fetch(`${served.origin}/_throttlelab/faults`, { method: 'POST', headers: json, body: '{nope' })).status,
    ).toBe(400);
    const added = await fetch(`${served.origin}/_throttlelab/faults`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ id: 'chaos', kind: 'status', status: 503, match: { provider: 'openai' } }),
    });
    expect(added.status).toBe(201);
    expect((await post(served, chatCall('openai'))).status).toBe(503);
    const list = await (await fetch(`${served.origin}/_throttlelab/faults`)).json();
    expect(list.faults).toMatchObject([{ id: 'chaos', origin: 'live', active: true, applied: 1 }]);
    expect((await fetch(`${served.origin}/_throttlelab/faults/chaos`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(`${served.origin}/_throttlelab/faults/chaos`, { method: 'DELETE' })).status).toBe(404);
    expect((await post(served, chatCall('openai'))).status).toBe(200);
    expect((await fetch(`${served.origin}/_throttlelab/nothing`)).status).toBe(404);
  });
});
