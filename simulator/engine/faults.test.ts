import { describe, expect, it } from 'vitest';
import { collectReply } from '../../test/helpers/collect-reply.js';
import { chatCall, scenarioFrom } from '../../test/helpers/scenario.js';
import { createFakeClock } from '../core/fake-clock.js';
import { createSimulator } from '../simulator.js';

const START = Date.UTC(2026, 0, 1, 0, 0, 0);

function withFaults(faults: string, providers = '') {
  const yaml = `
version: 1
name: faults
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-openai }], quotas: [{ metric: requests, limit: 100, per: 1m }, { metric: tokens, limit: 100000, per: 1m }], latency: { completionTokens: 6 } }
  - { id: anthropic, vendor: anthropic, models: [claude-haiku-4-5], keys: [{ id: main, value: sk-anthropic }], quotas: [{ metric: requests, limit: 100, per: 1m }], latency: { completionTokens: 6 } }
  - { id: gemini, vendor: gemini, models: [gemini-2.5-flash], keys: [{ id: main, value: sk-gemini }], quotas: [{ metric: requests, limit: 100, per: 1d }], latency: { completionTokens: 6 } }
  - { id: deepseek, vendor: deepseek, models: [deepseek-chat], keys: [{ id: main, value: sk-deepseek }], latency: { completionTokens: 6 } }
${providers}
faults:
${faults}`;
  const clock = createFakeClock(START);
  const sim = createSimulator(scenarioFrom(yaml), { seed: 3, clock });
  return {
    clock,
    sim,
    run: (call: ReturnType<typeof chatCall>, maxMs?: number) => collectReply(sim.handle(call), clock, maxMs),
  };
}

describe('status faults', () => {
  it('forces a status only inside its window, leaving quota untouched', async () => {
    const { run, clock, sim } = withFaults(
      `  - { id: storm, kind: status, at: 10s, for: 5s, match: { provider: anthropic }, status: 529 }`,
    );
    expect((await run(chatCall('anthropic'))).status).toBe(200);
    await clock.set(START + 10_000);
    const before = sim.quota().anthropic![0]!.remaining;
    const hit = await run(chatCall('anthropic'));
    expect(sim.quota().anthropic![0]!.remaining).toBe(before);
    expect(hit.status).toBe(529);
    expect(hit.headers['x-should-retry']).toBe('true');
    expect(sim.ledger.row(1)).toMatchObject({
      status: 529,
      errorType: 'overloaded_error',
      faults: ['storm'],
      hintMs: null,
    });
    await clock.set(START + 15_000);
    expect((await run(chatCall('anthropic'))).status).toBe(200);
  });

  it.each([
    ['seconds', { 'retry-after': '5' }, { hintMs: 5000, hintForm: 'seconds' }],
    ['ms', { 'retry-after-ms': '4500' }, { hintMs: 4500, hintForm: 'ms' }],
    ['http-date', { 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }, { hintMs: 5000, hintForm: 'http-date' }],
  ])('sends a %s hint exactly and records it', async (form, headers, row) => {
    const after = form === 'ms' ? '4500ms' : '4.2s';
    const { run, sim } = withFaults(
      `  - { id: f, kind: status, match: { provider: openai }, status: 429, hint: { form: ${form}, after: ${after} } }`,
    );
    const r = await run(chatCall('openai'));
    expect(r.status).toBe(429);
    expect(r.headers).toMatchObject(headers);
    expect(sim.ledger.row(0)).toMatchObject(row);
  });

  it('puts a reset-header hint only in the vendor reset headers', async () => {
    const { run, sim } = withFaults(
      `  - { id: f, kind: status, match: { provider: openai }, status: 429, hint: { form: reset-header, after: 6m } }`,
    );
    const r = await run(chatCall('openai'));
    expect(r.headers['x-ratelimit-reset-requests']).toBe('6m0s');
    expect(r.headers['x-ratelimit-remaining-requests']).toBe('0');
    expect(r.headers['retry-after']).toBeUndefined();
    expect(sim.ledger.row(0)).toMatchObject({ hintMs: 360_000, hintForm: 'reset-header' });
  });

  it('puts a body hint only in the body (Gemini RetryInfo)', async () => {
    const { run, sim } = withFaults(
      `  - { id: f, kind: status, match: { provider: gemini }, status: 429, hint: { form: body, after: 47s } }`,
    );
    const r = await run(chatCall('gemini'));
    expect(r.headers['retry-after']).toBeUndefined();
    expect(JSON.parse(r.body).error.details.at(-1)).toEqual({
      '@type': 'type.googleapis.com/google.rpc.RetryInfo',
      retryDelay: '47s',
    });
    expect(sim.ledger.row(0)).toMatchObject({ hintMs: 47_000, hintForm: 'body' });
  });

  it('sends no hint at all given form none', async () => {
    const { run, sim } = withFaults(
      `  - { id: f, kind: status, match: { provider: openai }, status: 429, hint: { form: none } }`,
    );
    const r = await run(chatCall('openai'));
    expect(Object.keys(r.headers).filter((h) => h.includes('ratelimit') || h.startsWith('retry-after'))).toEqual([]);
    expect(JSON.parse(r.body).error.message).not.toMatch(/try again in/);
    expect(sim.ledger.row(0)).toMatchObject({ hintMs: null, hintForm: null });
  });

  it.each([
    ['0s', '0', 0],
    ['-5s', '-5', -5000],
    ['3d', '259200', 259_200_000],
  ])('sends lying hints as given (%s)', async (after, header, ms) => {
    const { run, sim } = withFaults(
      `  - { id: f, kind: status, match: { provider: anthropic }, status: 429, hint: { form: seconds, after: ${after} } }`,
    );
    const r = await run(chatCall('anthropic'));
    expect(r.headers['retry-after']).toBe(header);
    expect(sim.ledger.row(0)!.hintMs).toBe(ms);
  });

  it('sends garbage hints verbatim and records them as garbage', async () => {
    const { run, sim } = withFaults(
      `  - { id: f, kind: status, match: { provider: anthropic }, status: 429, hint: { form: seconds, raw: "soon-ish" } }`,
    );
    const r = await run(chatCall('anthropic'));
    expect(r.headers['retry-after']).toBe('soon-ish');
    expect(sim.ledger.row(0)).toMatchObject({ hintMs: null, hintForm: 'garbage' });
  });

  it('phrases non-retryable quota errors per vendor', async () => {
    const { run } = withFaults(`
  - { id: a, kind: status, match: { provider: openai }, status: 429, error: quota_exhausted }
  - { id: b, kind: status, match: { provider: gemini }, status: 429, error: quota_exhausted }
  - { id: c, kind: status, match: { provider: anthropic }, status: 429, error: quota_exhausted }`);
    expect(JSON.parse((await run(chatCall('openai'))).body).error.code).toBe('insufficient_quota');
    const gemini = JSON.parse((await run(chatCall('gemini'))).body).error.details;
    // The daily wall lasts until midnight Pacific: 8 hours after 00:00 UTC in winter.
    expect(gemini.at(-1).retryDelay).toBe('28800s');
    expect(gemini[1].violations[0].quotaId).toBe('GenerateRequestsPerDayPerProjectPerModel-FreeTier');
    const anthropic = await run(chatCall('anthropic'));
    expect(anthropic.headers['retry-after']).toBeUndefined();
  });

  it('sends x-should-retry when the fault says so', async () => {
    const { run } = withFaults(
      `  - { id: f, kind: status, match: { provider: openai }, status: 500, shouldRetry: false }`,
    );
    expect((await run(chatCall('openai'))).headers['x-should-retry']).toBe('false');
  });
});

describe('transport faults', () => {
  it('hangs until the client gives up, recording the abort', async () => {
    const { run, sim } = withFaults(`  - { id: h, kind: hang, match: { provider: openai } }`);
    const r = await run(chatCall('openai'), 5000);
    expect(r.status).toBeNull();
    expect(r.ending).toBe('aborted');
    expect(sim.ledger.row(0)).toMatchObject({ status: 0, end: 'client-abort', faults: ['h'] });
  });

  it('hangs after the headers given afterHeaders', async () => {
    const { run } = withFaults(`  - { id: h, kind: hang, match: { provider: openai }, afterHeaders: true }`);
    const r = await run(chatCall('openai'), 5000);
    expect(r.status).toBe(200);
    expect(r.body).toBe('');
    expect(r.ending).toBe('aborted');
  });

  it('resets the connection before any byte', async () => {
    const { run, sim } = withFaults(`  - { id: r, kind: reset, match: { provider: openai } }`);
    const r = await run(chatCall('openai'));
    expect(r.status).toBeNull();
    expect(r.ending).toBe('reset');
    expect(sim.ledger.row(0)).toMatchObject({ status: 0, end: 'reset' });
  });

  it.each([
    ['truncated-json', (b: string) => expect(() => JSON.parse(b)).toThrow()],
    ['garbage', (b: string) => expect(b).toMatch(/<html>/)],
    ['empty', (b: string) => expect(b).toBe('')],
  ])('sends a malformed %s body with status 200', async (mode, check) => {
    const { run, sim } = withFaults(`  - { id: m, kind: malformed, match: { provider: openai }, mode: ${mode} }`);
    const r = await run(chatCall('openai'));
    expect(r.status).toBe(200);
    check(r.body);
    expect(sim.ledger.row(0)!.end).toBe('malformed');
  });

  it('breaks a stream after N chunks silently, with a reset, or with the vendor error event', async () => {
    const close = await withFaults(
      `  - { id: s, kind: stream-break, match: { provider: openai }, afterChunks: 2, end: close }`,
    ).run(chatCall('openai', { stream: true }));
    expect(close.body).not.toContain('[DONE]');
    expect(close.body.match(/"content":"/g)!.length).toBe(3);
    expect(close.ending).toBe('end');

    const reset = await withFaults(
      `  - { id: s, kind: stream-break, match: { provider: openai }, afterChunks: 2, end: reset }`,
    ).run(chatCall('openai', { stream: true }));
    expect(reset.ending).toBe('reset');

    const { run, sim } = withFaults(
      `  - { id: s, kind: stream-break, match: { provider: anthropic }, afterChunks: 2, end: error-event }`,
    );
    const event = await run(chatCall('anthropic', { stream: true }));
    expect(event.body).toMatch(
      /event: error\ndata: \{"type":"error","error":\{"type":"overloaded_error","message":"Overloaded"\}\}\n\n$/,
    );
    expect(event.body).not.toContain('message_stop');
    expect(sim.ledger.row(0)).toMatchObject({ status: 200, end: 'error-event', tokensOut: 2 });
  });

  it('holds a DeepSeek request with blank lines, then answers', async () => {
    const { run, sim } = withFaults(
      `  - { id: k, kind: keep-alive, match: { provider: deepseek }, holdFor: 3s, interval: 1s }`,
    );
    const r = await run(chatCall('deepseek'));
    expect(r.status).toBe(200);
    expect(r.headers['content-length']).toBeUndefined();
    expect(r.body.startsWith('\n\n\n{')).toBe(true);
    expect(JSON.parse(r.body).object).toBe('chat.completion');
    expect(r.writes.map((w) => w.at - START)).toEqual([0, 1000, 2000, 3000]);
    expect(sim.ledger.row(0)!.firstByteAt).toBe(START);
  });

  it('holds a DeepSeek stream with keep-alive comments and can close without answering', async () => {
    const { run, sim } = withFaults(
      `  - { id: k, kind: keep-alive, match: { provider: deepseek }, holdFor: 2s, interval: 1s, then: close }`,
    );
    const r = await run(chatCall('deepseek', { stream: true }));
    expect(r.body).toBe(': keep-alive\n\n: keep-alive\n\n');
    expect(sim.ledger.row(0)!.end).toBe('truncated');
  });

  it('paces time to first token and tokens per second from a latency fault', async () => {
    const { run } = withFaults(
      `  - { id: slow, kind: latency, match: { provider: openai }, ttft: 2s, tokensPerSecond: 10 }`,
    );
    const r = await run(chatCall('openai', { stream: true }));
    const contentAt = r.writes.filter((w) => /"content":"[^"]/.test(w.data)).map((w) => w.at - START);
    expect(contentAt).toEqual([2000, 2100, 2200, 2300, 2400, 2500]);
  });
});

describe('live faults', () => {
  it('adds a fault from now on and removes it', async () => {
    const { run, sim, clock } = withFaults('  - { id: never, kind: hang, at: 100d }');
    await clock.advance(60_000);
    const added = sim.addFault({ id: 'live', kind: 'status', status: 503, match: { provider: 'openai' }, for: '10s' });
    expect(added.ok).toBe(true);
    expect((await run(chatCall('openai'))).status).toBe(503);
    expect(sim.removeFault('live')).toBe(true);
    expect((await run(chatCall('openai'))).status).toBe(200);
  });

  it('rejects an invalid live fault with readable issues', () => {
    const { sim } = withFaults('  - { id: never, kind: hang, at: 100d }');
    const r = sim.addFault({ id: 'x', kind: 'status', status: 'soon', match: { provider: 'nope' } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.join('\n')).toMatch(/status/);
    const missing = sim.addFault({ id: 'x', kind: 'hang', match: { provider: 'nope' } });
    expect(missing.ok ? [] : missing.issues).toEqual(['match.provider: no provider "nope"']);
  });

  it("says what a live fault's durations may be, given ttft 30d, .nan or infinity", () => {
    const { sim } = withFaults('  - { id: never, kind: hang, at: 100d }');
    const issues = (input: unknown) => {
      const r = sim.addFault(input);
      return r.ok ? [] : r.issues;
    };
    expect(issues({ id: 'slow', kind: 'latency', ttft: '30d' })).toEqual([
      'ttft: expected at most 24d (no timer can wait longer)',
    ]);
    expect(issues({ id: 'slow', kind: 'latency', ttft: { dist: 'uniform', min: 0, max: Number.NaN } })).toEqual([
      'ttft.max: expected a duration such as 250ms, 5s or 1m30s (zero or more, at most 24d: no timer can wait longer), got NaN (.nan)',
    ]);
    expect(issues({ id: 'hint', kind: 'status', status: 429, hint: { after: Infinity } })).toEqual([
      'hint.after: expected a duration such as 250ms, 5s or 1m30s (within ±3650d), got Infinity (.inf, or a number past the largest a double holds, such as 1e309)',
    ]);
  });
});
