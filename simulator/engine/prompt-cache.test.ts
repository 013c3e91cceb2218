import { describe, expect, it } from 'vitest';
import { collectReply } from '../../test/helpers/collect-reply.js';
import { chatCall, scenarioFrom } from '../../test/helpers/scenario.js';
import { createFakeClock } from '../core/fake-clock.js';
import { createSimulator } from '../simulator.js';
import { cachePolicyFor, PromptCache } from './prompt-cache.js';
import { promptSegments } from './prompt-segments.js';

const YAML = `
version: 1
name: prompt-cache
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-openai }, { id: other, value: sk-openai-2 }], quotas: [{ metric: tokens, limit: 1000000, per: 1m }] }
  - { id: azure-openai, vendor: azure-openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-azure-openai }], quotas: [] }
  - id: anthropic
    vendor: anthropic
    models: [claude-sonnet-4-5, claude-3-5-haiku-20241022]
    keys: [{ id: main, value: sk-anthropic }]
    quotas: [{ metric: input-tokens, limit: 5000, per: 1m }]
  - { id: gemini, vendor: gemini, models: [gemini-2.5-flash], keys: [{ id: main, value: sk-gemini }], quotas: [] }
`;

function setup() {
  const clock = createFakeClock(Date.UTC(2026, 0, 1));
  const sim = createSimulator(scenarioFrom(YAML), { seed: 3, clock });
  const run = async (call: ReturnType<typeof chatCall>) => {
    const r = await collectReply(sim.handle(call), clock);
    return { status: r.status, json: r.status === 200 ? JSON.parse(r.body) : r.body };
  };
  return { clock, sim, run };
}

/** About `tokens` tokens of text that differs with `seed`. */
const text = (tokens: number, seed = 'a') => `${seed} `.repeat(tokens * 2).slice(0, tokens * 4);

function openaiBody(system: string, user: string, extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: user },
    ],
    ...extra,
  });
}

function anthropicBody(system: string, user: string, model = 'claude-sonnet-4-5', ttl?: '1h') {
  return JSON.stringify({
    model,
    max_tokens: 16,
    system: [{ type: 'text', text: system, cache_control: ttl ? { type: 'ephemeral', ttl } : { type: 'ephemeral' } }],
    messages: [{ role: 'user', content: user }],
  });
}

describe('OpenAI automatic prompt caching', () => {
  it('reports a warm prefix of 1024+ tokens in 128-token steps, per key, and none below 1024', async () => {
    const { run } = setup();
    const system = text(1300);
    const first = await run(chatCall('openai', { body: openaiBody(system, 'one') }));
    expect(first.json.usage.prompt_tokens_details.cached_tokens).toBe(0);
    const second = await run(chatCall('openai', { body: openaiBody(system, 'two') }));
    const cached = second.json.usage.prompt_tokens_details.cached_tokens as number;
    // The system message (1300 tokens + 3 framing) is the warm prefix, counted down to 1024 + k·128.
    expect(cached).toBe(1280);
    expect(second.json.usage.prompt_tokens).toBeGreaterThan(cached);
    // Another key (another org) has its own cache.
    const other = await run(chatCall('openai', { key: 'sk-openai-2', body: openaiBody(system, 'three') }));
    expect(other.json.usage.prompt_tokens_details.cached_tokens).toBe(0);
    // A short prompt is never cached.
    await run(chatCall('openai', { body: openaiBody(text(500), 'x') }));
    const short = await run(chatCall('openai', { body: openaiBody(text(500), 'y') }));
    expect(short.json.usage.prompt_tokens_details.cached_tokens).toBe(0);
  });

  it('forgets a prefix after its TTL of inactivity, on the injected clock', async () => {
    const { run, clock } = setup();
    const system = text(2000);
    await run(chatCall('openai', { body: openaiBody(system, 'a') }));
    await clock.advance(4 * 60_000);
    const warm = await run(chatCall('openai', { body: openaiBody(system, 'b') }));
    expect(warm.json.usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(0);
    await clock.advance(6 * 60_000);
    const cold = await run(chatCall('openai', { body: openaiBody(system, 'c') }));
    expect(cold.json.usage.prompt_tokens_details.cached_tokens).toBe(0);
  });

  it('reports Azure hits in prompt_tokens_details too', async () => {
    const { run } = setup();
    const body = JSON.stringify({
      messages: [
        { role: 'system', content: text(1500) },
        { role: 'user', content: 'q' },
      ],
    });
    await run(chatCall('azure-openai', { body }));
    const second = await run(chatCall('azure-openai', { body }));
    expect(second.json.usage.prompt_tokens_details.cached_tokens).toBeGreaterThanOrEqual(1024);
  });
});

describe('Anthropic explicit cache breakpoints', () => {
  it('writes at a breakpoint, then reads it; input_tokens are what follows the breakpoint', async () => {
    const { run, sim } = setup();
    const system = text(2000);
    const first = await run(chatCall('anthropic', { body: anthropicBody(system, 'first question') }));
    const u1 = first.json.usage;
    expect(u1.cache_read_input_tokens).toBe(0);
    expect(u1.cache_creation_input_tokens).toBe(2000);
    const second = await run(chatCall('anthropic', { body: anthropicBody(system, 'second question') }));
    const u2 = second.json.usage;
    expect(u2.cache_read_input_tokens).toBe(2000);
    expect(u2.cache_creation_input_tokens).toBe(0);
    expect(u2.input_tokens).toBeLessThan(20);
    const rows = sim.ledger.query({ provider: 'anthropic' }).rows;
    expect(rows.map((r) => [r.cacheRead ?? 0, r.cacheWrite ?? 0])).toEqual([
      [0, 2000],
      [2000, 0],
    ]);
  });

  it('caches nothing without a breakpoint or below the model minimum', async () => {
    const { run } = setup();
    const plain = JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 16,
      system: text(1500),
      messages: [{ role: 'user', content: 'q' }],
    });
    await run(chatCall('anthropic', { body: plain }));
    const again = await run(chatCall('anthropic', { body: plain }));
    expect(again.json.usage.cache_read_input_tokens).toBe(0);
    // Haiku 3.5 needs 2048 tokens.
    const short = anthropicBody(text(1500), 'q', 'claude-3-5-haiku-20241022');
    const s1 = await run(chatCall('anthropic', { body: short }));
    expect(s1.json.usage.cache_creation_input_tokens).toBe(0);
  });

  it('keeps a 1h entry past five minutes and drops a 5m one', async () => {
    const { run, clock } = setup();
    const long = text(1500, 'L');
    const short = text(1500, 'S');
    await run(chatCall('anthropic', { body: anthropicBody(long, 'q', 'claude-sonnet-4-5', '1h') }));
    await run(chatCall('anthropic', { body: anthropicBody(short, 'q') }));
    await clock.advance(30 * 60_000);
    const l = await run(chatCall('anthropic', { body: anthropicBody(long, 'r', 'claude-sonnet-4-5', '1h') }));
    const s = await run(chatCall('anthropic', { body: anthropicBody(short, 'r') }));
    expect(l.json.usage.cache_read_input_tokens).toBe(1500);
    expect(s.json.usage.cache_read_input_tokens).toBe(0);
  });

  it('does not charge cache reads to ITPM (Sonnet 4.5), but does on a † model (Haiku 3.5)', async () => {
    // ITPM 5,000: a 3,000-token cached prefix read again and again fits many times over.
    const { run } = setup();
    const system = text(3000);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await run(chatCall('anthropic', { body: anthropicBody(system, `q${i}`) }))).status!);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    const haiku: number[] = [];
    for (let i = 0; i < 3; i++)
      haiku.push(
        (await run(chatCall('anthropic', { body: anthropicBody(system, `h${i}`, 'claude-3-5-haiku-20241022') })))
          .status!,
      );
    expect(haiku).toContain(429);
  });
});

describe('Gemini implicit caching', () => {
  it('reports cachedContentTokenCount on a repeated prefix of 2048+ tokens (2.5 models)', async () => {
    const { run } = setup();
    const body = (q: string) =>
      JSON.stringify({
        systemInstruction: { parts: [{ text: text(2500) }] },
        contents: [{ role: 'user', parts: [{ text: q }] }],
      });
    const first = await run(chatCall('gemini', { body: body('a') }));
    expect(first.json.usageMetadata.cachedContentTokenCount).toBeUndefined();
    const second = await run(chatCall('gemini', { body: body('b') }));
    expect(second.json.usageMetadata.cachedContentTokenCount).toBe(2500);
    expect(second.json.usageMetadata.promptTokenCount).toBeGreaterThan(2500);
  });
});

describe('PromptCache', () => {
  it('is bounded: the least recently used prefixes go first', () => {
    const cache = new PromptCache(2);
    const policy = cachePolicyFor('openai', 'gpt-4o-mini', {})!;
    const seg = (s: string) =>
      promptSegments('openai', undefined, { messages: [{ role: 'user', content: text(1100, s) }] });
    for (const s of ['a', 'b', 'c']) cache.commit(cache.lookup('org', 'm', seg(s), 5000, policy, 0), 0);
    expect(cache.size).toBe(2);
    expect(cache.lookup('org', 'm', seg('a'), 5000, policy, 1).read).toBe(0);
    expect(cache.lookup('org', 'm', seg('c'), 5000, policy, 1).read).toBeGreaterThan(0);
  });

  it('takes the documented figures unless the scenario overrides them', () => {
    expect(cachePolicyFor('anthropic', 'claude-haiku-4-5', {})?.minTokens).toBe(4096);
    expect(cachePolicyFor('anthropic', 'claude-sonnet-4-5', {})?.readsCountTowardLimits).toBe(false);
    expect(cachePolicyFor('openai', 'gpt-4o', { promptCacheMinTokens: 10, promptCacheTtl: 1000 })).toMatchObject({
      minTokens: 10,
      ttlMs: 1000,
    });
    expect(cachePolicyFor('openai', 'gpt-4o', { promptCache: false })).toBeUndefined();
    expect(cachePolicyFor('groq', 'llama', {})).toBeUndefined();
  });
});
