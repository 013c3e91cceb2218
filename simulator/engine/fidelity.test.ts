import { describe, expect, it } from 'vitest';
import { collectReply } from '../../test/helpers/collect-reply.js';
import { chatCall, scenarioFrom } from '../../test/helpers/scenario.js';
import { createFakeClock } from '../core/fake-clock.js';
import { createSimulator } from '../simulator.js';

// Regression tests for behaviours that real SDKs showed diverging from the vendors.

const START = Date.UTC(2026, 0, 1, 12, 0, 0);

function world(providers: string, faults = '') {
  const yaml = `
version: 1
name: fidelity
providers:
${providers}
${faults ? `faults:\n${faults}` : ''}`;
  const clock = createFakeClock(START);
  const sim = createSimulator(scenarioFrom(yaml), { seed: 5, clock });
  return { clock, sim, run: (call: ReturnType<typeof chatCall>) => collectReply(sim.handle(call), clock) };
}

const GEMINI = `  - { id: gemini, vendor: gemini, models: [gemini-2.5-flash], keys: [{ id: main, value: sk-gemini }], latency: { completionTokens: 20 } }`;

describe('gemini streamGenerateContent without alt=sse', () => {
  it('streams one valid JSON array whose last element carries the finish reason and usage', async () => {
    const { run } = world(GEMINI);
    const call = chatCall('gemini', { stream: true });
    const res = await run({ ...call, url: call.url.replace('?alt=sse', '') });
    expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
    const chunks = JSON.parse(res.body) as Array<{
      candidates: Array<{ finishReason?: string }>;
      usageMetadata: { candidatesTokenCount?: number };
    }>;
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.at(-1)!.candidates[0]!.finishReason).toBe('STOP');
    expect(chunks.at(-1)!.usageMetadata.candidatesTokenCount).toBe(20);
    // Each element ends on a line of its own, as a reader that splits on CRLF and cuts `\n]` expects.
    expect(res.body).toMatch(/^\[\{/);
    expect(res.body).toMatch(/\}\n,\r\n\{/);
    expect(res.body.endsWith('}\n]')).toBe(true);
    const portkeyPieces = res.body.split('\r\n').map((piece) => {
      let chunk = piece.trim();
      if (chunk.startsWith('[')) chunk = chunk.slice(1);
      if (chunk.endsWith(',')) chunk = chunk.slice(0, -1);
      if (chunk.endsWith(']')) chunk = chunk.slice(0, -2);
      return JSON.parse(chunk) as unknown;
    });
    expect(portkeyPieces).toHaveLength(chunks.length);
  });

  it('writes the compact layout when the scenario asks for it', async () => {
    const { run } = world(GEMINI.replace('latency:', 'options: { arrayLayout: compact }, latency:'));
    const call = chatCall('gemini', { stream: true });
    const res = await run({ ...call, url: call.url.replace('?alt=sse', '') });
    expect(JSON.parse(res.body)).toBeInstanceOf(Array);
    expect(res.body).toMatch(/\},\r\n\{/);
    expect(res.body.endsWith('}]')).toBe(true);
  });
});

describe('gemini streamGenerateContent without alt=sse, cut by an error', () => {
  it('stays one valid JSON array whose last element is the error, even before any content', async () => {
    for (const afterChunks of [0, 1]) {
      const { run } = world(
        GEMINI,
        `  - { id: cut, kind: stream-break, match: { provider: gemini }, afterChunks: ${afterChunks}, end: error-event }`,
      );
      const call = chatCall('gemini', { stream: true });
      const res = await run({ ...call, url: call.url.replace('?alt=sse', '') });
      const chunks = JSON.parse(res.body) as Array<{ error?: { status: string } }>;
      expect(chunks).toHaveLength(afterChunks + 1);
      expect(chunks.at(-1)!.error?.status).toBe('UNAVAILABLE');
    }
  });
});

describe('mistral streams', () => {
  it('carry usage on the finish chunk without stream_options, as the Mistral SDK expects', async () => {
    const { run } = world(
      `  - { id: mistral, vendor: mistral, models: [mistral-small-latest], keys: [{ id: main, value: sk-mistral }], latency: { completionTokens: 4 } }`,
    );
    const res = await run(
      chatCall('mistral', {
        stream: true,
        body: JSON.stringify({
          model: 'mistral-small-latest',
          stream: true,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      }),
    );
    const events = res.body
      .split('\n\n')
      .filter((e) => e.startsWith('data: {'))
      .map(
        (e) =>
          JSON.parse(e.slice(6)) as {
            choices: Array<{ finish_reason: string | null }>;
            usage?: { completion_tokens: number };
          },
      );
    const finish = events.find((e) => e.choices[0]?.finish_reason === 'stop')!;
    expect(finish.usage?.completion_tokens).toBe(4);
    expect(res.body.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });
});

const ANTHROPIC = `  - { id: anthropic, vendor: anthropic, models: [claude-haiku-4-5], keys: [{ id: main, value: sk-anthropic }], quotas: [{ metric: requests, limit: 5000, per: 1m }] }`;

describe('anthropic acceleration limits', () => {
  it('name ramp_limit_exceeded in error.details.error_code beside retry-after', async () => {
    const { run } = world(
      ANTHROPIC,
      `  - { id: ramp, kind: status, match: { provider: anthropic }, status: 429, error: slow_down, hint: { after: 3s } }`,
    );
    const res = await run(chatCall('anthropic'));
    expect(res.status).toBe(429);
    expect(JSON.parse(res.body).error).toMatchObject({
      type: 'rate_limit_error',
      details: { error_code: 'ramp_limit_exceeded' },
    });
    expect(res.headers['retry-after']).toBe('3');
  });
});

describe('a forced 429', () => {
  const FORCED = (provider: string) =>
    `  - { id: forced, kind: status, match: { provider: ${provider} }, status: 429, hint: { after: 2s } }`;

  it('shows anthropic requests remaining 0 until the wait ends', async () => {
    const { run } = world(ANTHROPIC, FORCED('anthropic'));
    const res = await run(chatCall('anthropic'));
    expect(res.headers['retry-after']).toBe('2');
    expect(res.headers['anthropic-ratelimit-requests-remaining']).toBe('0');
    expect(Date.parse(res.headers['anthropic-ratelimit-requests-reset']!)).toBeGreaterThanOrEqual(START + 2000);
  });

  it('shows azure-openai requests remaining 0', async () => {
    const { run } = world(
      `  - { id: azure-openai, vendor: azure-openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-azure-openai }], quotas: [{ metric: requests, limit: 5000, per: 10s }, { metric: tokens, limit: 100000, per: 1m }] }`,
      FORCED('azure-openai'),
    );
    const res = await run(chatCall('azure-openai'));
    expect(res.headers['x-ratelimit-remaining-requests']).toBe('0');
    expect(res.headers['retry-after-ms']).toBe('2000');
  });

  it('shows the ratelimit-draft policy with r=0 and t at the wait', async () => {
    const { run } = world(
      `  - { id: ratelimit-draft, vendor: ratelimit-draft, models: [generic-1], keys: [{ id: main, value: sk-ratelimit-draft }], quotas: [{ metric: requests, limit: 5000, per: 1m }] }`,
      FORCED('ratelimit-draft'),
    );
    const res = await run(chatCall('ratelimit-draft'));
    expect(res.headers.ratelimit).toMatch(/^"requests-60s";r=0;t=(\d+)$/);
    expect(Number(/t=(\d+)/.exec(res.headers.ratelimit!)![1])).toBeGreaterThanOrEqual(2);
  });

  it('leaves the ledger with the quota as it really is', async () => {
    const { run, sim } = world(ANTHROPIC, FORCED('anthropic'));
    await run(chatCall('anthropic'));
    expect(sim.ledger.row(0)!.quota.requestsAfter).toBe(5000);
  });
});

describe('groq 429s', () => {
  const GROQ = `  - { id: groq, vendor: groq, models: [llama-3.1-8b-instant], keys: [{ id: main, value: sk-groq }], quotas: [{ metric: requests, limit: 14400, per: 1d }, { metric: requests, limit: 30, per: 1m }, { metric: tokens, limit: 6000, per: 1m }] }`;

  it('carry retry-after and no x-ratelimit headers, as captured', async () => {
    const { run } = world(
      GROQ,
      `  - { id: f, kind: status, match: { provider: groq }, status: 429, hint: { after: 2s } }`,
    );
    const res = await run(chatCall('groq'));
    expect(res.headers['retry-after']).toBe('2');
    expect(Object.keys(res.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
  });

  it('keep the daily request count when a per-minute limit is forced, with the headers asked for', async () => {
    const { run } = world(
      GROQ.replace('quotas:', 'options: { headersOn429: all }, quotas:'),
      `  - { id: f, kind: status, match: { provider: groq }, status: 429, hint: { after: 2s } }`,
    );
    const res = await run(chatCall('groq'));
    expect(res.headers['x-ratelimit-limit-requests']).toBe('14400');
    expect(res.headers['x-ratelimit-remaining-requests']).toBe('14400');
  });
});

describe('a stream-break fault', () => {
  it('cuts an answer shorter than afterChunks after its last content, before the finish', async () => {
    const { run, sim } = world(
      `  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-openai }], latency: { completionTokens: 3 } }`,
      `  - { id: cut, kind: stream-break, match: { provider: openai }, afterChunks: 10, end: close }`,
    );
    const res = await run(chatCall('openai', { stream: true }));
    expect(res.body).not.toContain('[DONE]');
    expect(res.body).not.toContain('"finish_reason":"stop"');
    expect(sim.ledger.row(0)).toMatchObject({ end: 'truncated', tokensOut: 3, faults: ['cut'] });
  });
});

describe('a gemini daily-wall fault', () => {
  it('announces the time to midnight Pacific on a provider without a day quota', async () => {
    const { run, sim } = world(
      GEMINI,
      `  - { id: wall, kind: status, match: { provider: gemini }, status: 429, error: quota_exhausted }`,
    );
    const res = await run(chatCall('gemini'));
    // 12:00 UTC on 1 January is 04:00 in Los Angeles (PST, UTC-8): 20 hours to midnight.
    const retry = JSON.parse(res.body).error.details.find((d: { '@type': string }) => d['@type'].endsWith('RetryInfo'));
    expect(retry.retryDelay).toBe(`${20 * 3600}s`);
    expect(sim.ledger.row(0)!.hintMs).toBe(20 * 3600 * 1000);
  });
});

describe('anthropic x-should-retry', () => {
  it('is sent on a 529 and a rate-limit 429 but not on a 400', async () => {
    const { run, clock, sim } = world(ANTHROPIC);
    const bad = await run(chatCall('anthropic', { body: '{"model":"claude-haiku-4-5","messages":[]}' }));
    expect(bad.status).toBe(400);
    expect(bad.headers['x-should-retry']).toBeUndefined();
    sim.addFault({ id: 'o', kind: 'status', status: 529, match: { provider: 'anthropic', firstN: 1 } });
    sim.addFault({ id: 'r', kind: 'status', status: 429, at: 1000, match: { provider: 'anthropic', firstN: 1 } });
    expect((await run(chatCall('anthropic'))).headers['x-should-retry']).toBe('true');
    await clock.advance(1000);
    expect((await run(chatCall('anthropic'))).headers['x-should-retry']).toBe('true');
  });

  it('is false on every other 4xx with shouldRetryHeader: false-on-4xx, and absent with never', async () => {
    const strict = world(ANTHROPIC.replace('quotas:', 'options: { shouldRetryHeader: false-on-4xx }, quotas:'));
    const bad = await strict.run(chatCall('anthropic', { key: 'sk-wrong' }));
    expect(bad.headers['x-should-retry']).toBe('false');
    const never = world(
      ANTHROPIC.replace('quotas:', 'options: { shouldRetryHeader: never }, quotas:'),
      `  - { id: o, kind: status, match: { provider: anthropic }, status: 529 }`,
    );
    expect((await never.run(chatCall('anthropic'))).headers['x-should-retry']).toBeUndefined();
  });
});

describe('a malformed percent-escape in a model path', () => {
  it("is answered with the vendor's 404, not a simulator error", async () => {
    const { sim, clock } = world(
      `${GEMINI}\n  - { id: bedrock, vendor: bedrock, models: [m], keys: [{ id: main, value: sk-bedrock }] }`,
    );
    for (const [url, headers] of [
      ['/gemini/v1beta/models/%E0%A4%A:generateContent', { 'x-goog-api-key': 'sk-gemini' }],
      ['/bedrock/model/%E0%A4%A/converse', { authorization: 'Bearer sk-bedrock' }],
    ] as const) {
      const res = await collectReply(sim.handle({ method: 'POST', url, headers, body: '{}' }), clock);
      expect(res.status, url).toBe(404);
    }
  });
});
