import OpenAI, { AzureOpenAI } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { countPromptTokens } from '../../simulator/engine/tokens.js';
import { serve, type Served } from '../helpers/serve.js';

const PROVIDERS = `
version: 1
name: sdk-openai
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim-openai }], quotas: [{ metric: requests, limit: 100, per: 1m }, { metric: tokens, limit: 100000, per: 1m }], latency: { completionTokens: 5 } }
  - { id: tight, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim-tight }], quotas: [{ metric: requests, limit: 1, per: 1m }, { metric: tokens, limit: 100000, per: 1m }] }
  - { id: azure, vendor: azure-openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim-azure }], quotas: [{ metric: requests, limit: 100, per: 10s }, { metric: tokens, limit: 100000, per: 1m }], latency: { completionTokens: 5 } }
`;

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const ask = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hello' }] };

/** Gap between the moment attempt `a` got its answer and attempt `b` arrived. */
function gapMs(s: Served, a: number, b: number): number {
  return s.sim.ledger.row(b)!.arrivalAt - s.sim.ledger.row(a)!.firstByteAt!;
}

describe('openai SDK against the openai profile', () => {
  it('reads a completion and its usage', async () => {
    served = await serve(PROVIDERS);
    const client = new OpenAI({ baseURL: `${served.origin}/openai/v1`, apiKey: 'sk-sim-openai' });
    const res = await client.chat.completions.create(ask);
    expect(res.choices[0]!.message.content).toMatch(/\w/);
    expect(res.usage!.completion_tokens).toBe(5);
    expect(res.usage!.total_tokens).toBe(res.usage!.prompt_tokens + 5);
  });

  it('raises RateLimitError with the x-ratelimit headers once the quota is spent', async () => {
    served = await serve(PROVIDERS);
    const client = new OpenAI({ baseURL: `${served.origin}/tight/v1`, apiKey: 'sk-sim-tight', maxRetries: 0 });
    await client.chat.completions.create(ask);
    const error = await client.chat.completions.create(ask).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const e = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(e.status).toBe(429);
    expect(e.code).toBe('rate_limit_exceeded');
    expect(e.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(e.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+m)?\d+(\.\d+)?s$/);
    expect(e.requestID).toMatch(/^req_/);
  });

  it('waits what retry-after-ms asked before its retry, as the ledger shows', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: once, kind: status, match: { provider: openai, firstN: 1 }, status: 429, hint: { form: ms, after: 300ms } }`);
    const client = new OpenAI({ baseURL: `${served.origin}/openai/v1`, apiKey: 'sk-sim-openai', maxRetries: 2 });
    await client.chat.completions.create(ask);
    const rows = [...served.sim.ledger.rowsIterator()];
    expect(rows.map((r) => [r.status, r.sdkRetryCount, r.hintMs])).toEqual([
      [429, 0, 300],
      [200, 1, null],
    ]);
    expect(gapMs(served, 0, 1)).toBeGreaterThanOrEqual(295);
  });

  it('retries an insufficient_quota 429 it should not, unless told x-should-retry: false', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: billing, kind: status, match: { provider: openai, key: main }, status: 429, error: quota_exhausted, hint: { form: none } }
  - { id: billing-flagged, kind: status, match: { provider: tight }, status: 429, error: quota_exhausted, shouldRetry: false, hint: { form: none } }`);
    const naive = new OpenAI({ baseURL: `${served.origin}/openai/v1`, apiKey: 'sk-sim-openai', maxRetries: 1 });
    const e1 = await naive.chat.completions.create(ask).catch((e: unknown) => e);
    expect((e1 as { code?: string }).code).toBe('insufficient_quota');
    expect(served.sim.ledger.query({ provider: 'openai' }).total).toBe(2);
    const flagged = new OpenAI({ baseURL: `${served.origin}/tight/v1`, apiKey: 'sk-sim-tight', maxRetries: 1 });
    await flagged.chat.completions.create(ask).catch(() => undefined);
    expect(served.sim.ledger.query({ provider: 'tight' }).total).toBe(1);
  });

  it('raises an overloaded 503 as InternalServerError', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: o, kind: status, match: { provider: openai }, status: 503 }`);
    const client = new OpenAI({ baseURL: `${served.origin}/openai/v1`, apiKey: 'sk-sim-openai', maxRetries: 0 });
    const e = await client.chat.completions.create(ask).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OpenAI.InternalServerError);
    expect((e as { code?: string }).code).toBe('server_is_overloaded');
  });

  it('streams chunks and the include_usage chunk', async () => {
    served = await serve(PROVIDERS);
    const client = new OpenAI({ baseURL: `${served.origin}/openai/v1`, apiKey: 'sk-sim-openai' });
    const stream = await client.chat.completions.create({
      ...ask,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text.split(' ')).toHaveLength(5);
    expect(usage?.completion_tokens).toBe(5);
  });

  it('throws during iteration when an error arrives inside a 200 stream', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: cut, kind: stream-break, match: { provider: openai }, afterChunks: 2, end: error-event }`);
    const client = new OpenAI({ baseURL: `${served.origin}/openai/v1`, apiKey: 'sk-sim-openai' });
    const stream = await client.chat.completions.create({ ...ask, stream: true });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta?.content ?? '');
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(String((error as Error).message)).toMatch(/overloaded/);
    expect(seen.filter(Boolean)).toHaveLength(2);
  });

  it('sees a foreign key refused with 401 and recorded as foreign', async () => {
    served = await serve(PROVIDERS);
    const client = new OpenAI({ baseURL: `${served.origin}/openai/v1`, apiKey: 'sk-sim-azure', maxRetries: 0 });
    const e = await client.chat.completions.create(ask).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(served.sim.ledger.row(0)!.key).toBe('foreign:azure/main');
  });
});

describe('openai SDK (AzureOpenAI) against the azure-openai profile', () => {
  it('uses the deployment path, api-key and api-version, and prefers retry-after-ms to retry-after', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: once, kind: status, match: { provider: azure, firstN: 1 }, status: 429, hint: { after: 250ms } }`);
    const client = new AzureOpenAI({
      endpoint: `${served.origin}/azure`,
      apiKey: 'sk-sim-azure',
      apiVersion: '2024-10-21',
      maxRetries: 1,
    });
    const res = await client.chat.completions.create(ask);
    expect(res.usage!.completion_tokens).toBe(5);
    const [first, second] = [served.sim.ledger.row(0)!, served.sim.ledger.row(1)!];
    expect(first).toMatchObject({ status: 429, hintMs: 250, hintForm: 'ms', model: 'gpt-4o-mini' });
    // retry-after says 1 (whole seconds); retry-after-ms says 250 and wins.
    const gap = gapMs(served, 0, 1);
    expect(gap).toBeGreaterThanOrEqual(245);
    expect(gap).toBeLessThan(900);
    expect(second.status).toBe(200);
  });

  it('raises RateLimitError whose message carries the wait', async () => {
    served = await serve(`${PROVIDERS}
faults:
  - { id: wall, kind: status, match: { provider: azure }, status: 429, hint: { after: 86400s } }`);
    const client = new AzureOpenAI({
      endpoint: `${served.origin}/azure`,
      apiKey: 'sk-sim-azure',
      apiVersion: '2024-10-21',
      maxRetries: 0,
    });
    const e = await client.chat.completions.create(ask).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OpenAI.RateLimitError);
    expect((e as Error).message).toMatch(/Please retry after 86400 seconds/);
    expect((e as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('86400');
  });
});

describe('embeddings through the official clients', () => {
  // The openai token window is a day's: it refills a token every 86 s of wall time, so the
  // remaining count read after a request is exact even on a machine that lags.
  const EMBED = `
version: 1
name: sdk-embeddings
providers:
  - { id: openai, vendor: openai, models: [text-embedding-3-small], keys: [{ id: main, value: sk-sim-openai }], quotas: [{ metric: requests, limit: 100, per: 1m }, { metric: tokens, limit: 1000, per: 1d }] }
  - { id: azure, vendor: azure-openai, models: [text-embedding-3-small], keys: [{ id: main, value: sk-sim-azure }], quotas: [{ metric: requests, limit: 100, per: 10s }, { metric: tokens, limit: 1000, per: 1m }] }
`;

  it('answers the openai SDK (which asks for base64) with decoded vectors, charging the input to TPM', async () => {
    served = await serve(EMBED);
    const client = new OpenAI({ baseURL: `${served.origin}/openai/v1`, apiKey: 'sk-sim-openai' });
    const r = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['abcd efgh', 'ijkl'] });
    expect(r.data.map((d) => d.embedding.length)).toEqual([1536, 1536]);
    expect(r.usage).toEqual({ prompt_tokens: 4, total_tokens: 4 });
    expect(served.sim.ledger.row(0)).toMatchObject({ endpoint: 'embeddings', tokensIn: 4, tokensOut: 0 });
    expect(served.sim.quota().openai!.find((q) => q.rule === 'tokens/1d')!.remaining).toBe(996);
  });

  it('answers AzureOpenAI on the deployment path and the AI SDK on /openai/v1', async () => {
    served = await serve(EMBED);
    const azure = new AzureOpenAI({
      endpoint: `${served.origin}/azure`,
      apiKey: 'sk-sim-azure',
      apiVersion: '2024-10-21',
    });
    const r = await azure.embeddings.create({ model: 'text-embedding-3-small', input: 'hello', dimensions: 8 });
    expect(r.data[0]!.embedding).toHaveLength(8);
    const { embed } = await import('ai');
    const { createAzure } = await import('@ai-sdk/azure');
    const provider = createAzure({ baseURL: `${served.origin}/azure/openai/v1`, apiKey: 'sk-sim-azure' });
    const e = await embed({ model: provider.embedding('text-embedding-3-small'), value: 'hello there' });
    expect(e.embedding).toHaveLength(1536);
    // Embedding inputs are metered by the tokenizer, one by one and unframed (docs/decisions/token-counting.md).
    expect(e.usage.tokens).toBe(countPromptTokens('azure-openai', 'hello there', 1, false));
    expect([...served.sim.ledger.rowsIterator()].map((row) => row.endpoint)).toEqual(['embeddings', 'embeddings']);
  });

  it('refuses embeddings past the token quota with the 429 chat gets', async () => {
    served = await serve(EMBED);
    const client = new OpenAI({ baseURL: `${served.origin}/openai/v1`, apiKey: 'sk-sim-openai', maxRetries: 0 });
    // Sized by the tokenizer's count, not by characters: 8000 x's are 1000 tokens, which the
    // 1000-token window still admits.
    const input = 'word '.repeat(2000);
    expect(countPromptTokens('openai', input, 1, false)).toBeGreaterThan(1000);
    const e = await client.embeddings.create({ model: 'text-embedding-3-small', input }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OpenAI.RateLimitError);
    expect((e as { code?: string }).code).toBe('rate_limit_exceeded');
  });
});
