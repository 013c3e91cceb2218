import { describe, expect, it } from 'vitest';
import { admittedChat, cachedChat, stageEngine } from '../../../test/helpers/engine-stages.js';
import { chatCall } from '../../../test/helpers/scenario.js';
import { commitCache } from './cache.js';

const LONG_PROMPT = 'the quick brown fox jumps over the lazy dog '.repeat(200);

function setup() {
  return stageEngine(`
version: 1
name: stage-cache
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-openai }], quotas: [{ metric: tokens, limit: 1000000, per: 1m }] }
  - { id: anthropic, vendor: anthropic, models: [claude-haiku-4-5], keys: [{ id: main, value: sk-anthropic }], quotas: [{ metric: input-tokens, limit: 1000000, per: 1m }] }
  - { id: groq, vendor: groq, models: [llama-3.1-8b-instant], keys: [{ id: main, value: sk-groq }] }
`);
}

/** An Anthropic request whose long system prompt ends at a cache breakpoint. */
const anthropicCached = () =>
  chatCall('anthropic', {
    body: JSON.stringify({
      model: 'claude-haiku-4-5',
      max_tokens: 64,
      system: [{ type: 'text', text: LONG_PROMPT.repeat(3), cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'hi' }],
    }),
  });

describe('lookUpCache and commitCache', () => {
  it('look nothing up where the vendor caches no prompts', () => {
    const { engine, clock } = setup();
    const attempt = admittedChat(engine, chatCall('groq', { prompt: LONG_PROMPT }), clock.now());
    expect(attempt.lookup).toBeUndefined();
    expect(attempt.uncounted).toBe(0);
    commitCache(attempt);
    expect(attempt.cache).toBeUndefined();
  });

  it('read a prefix only once an admitted request committed it', () => {
    const { engine, clock } = setup();
    const call = chatCall('openai', { prompt: LONG_PROMPT });
    const first = admittedChat(engine, call, clock.now());
    expect(first.lookup).toMatchObject({ read: 0, write: 0 });
    expect(first.cache).toBeUndefined();
    expect(cachedChat(engine, call, clock.now()).lookup!.read).toBe(0);
    commitCache(first);
    expect(first.cache).toBe(first.lookup);
    const second = cachedChat(engine, call, clock.now() + 1000);
    expect(second.lookup!.read).toBeGreaterThanOrEqual(1024);
    // OpenAI counts cached tokens toward its limits unless the scenario says otherwise.
    expect(second.uncounted).toBe(0);
  });

  it('keep cache reads off the limits where the vendor does not count them (Anthropic)', () => {
    const { engine, clock } = setup();
    const call = anthropicCached();
    commitCache(admittedChat(engine, call, clock.now()));
    const again = cachedChat(engine, call, clock.now() + 1000);
    expect(again.uncounted).toBe(again.lookup!.read);
    expect(again.uncounted).toBeGreaterThanOrEqual(4096);
  });
});
