import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../core/types.js';
import { anthropicAdapter } from './anthropic.js';
import { withoutCacheControl } from './cache-hints.js';
import { createOpenAICompatibleAdapter } from './openai-compatible.js';

const ctx = { baseUrl: 'http://x', model: 'm', apiKey: 'k', forward: {}, defaultMaxTokens: 64, now: 0 };

const req: ChatRequest = {
  model: 'auto',
  cache_control: { type: 'ephemeral' },
  prompt_cache_key: 'conv-7',
  messages: [
    {
      role: 'system',
      content: [
        { type: 'text', text: 'rules' },
        { type: 'text', text: 'long document', cache_control: { type: 'ephemeral', ttl: '1h' } },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: 'q', cache_control: { type: 'ephemeral' } }] },
    { role: 'assistant', content: 'a' },
  ],
};

describe('cache hints across vendors', () => {
  it('keeps Anthropic breakpoints as system and message blocks, and the top-level one', async () => {
    const call = await anthropicAdapter.buildRequest(req, ctx, false);
    const body = JSON.parse(call.body!);
    expect(body.system).toEqual([
      { type: 'text', text: 'rules' },
      { type: 'text', text: 'long document', cache_control: { type: 'ephemeral', ttl: '1h' } },
    ]);
    expect(body.messages[0]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'q', cache_control: { type: 'ephemeral' } }],
    });
    expect(body.messages[1]).toEqual({ role: 'assistant', content: 'a' });
    expect(body.cache_control).toEqual({ type: 'ephemeral' });
    expect(body.prompt_cache_key).toBeUndefined();
  });

  it('leaves a plain system prompt a string', async () => {
    const call = await anthropicAdapter.buildRequest(
      {
        model: 'auto',
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hi' },
        ],
      },
      ctx,
      false,
    );
    expect(JSON.parse(call.body!).system).toBe('be brief');
  });

  it('sends OpenAI prompt_cache_key on and drops cache_control, copying nothing when there is none', async () => {
    const call = await createOpenAICompatibleAdapter('openai').buildRequest(req, ctx, false);
    const body = JSON.parse(call.body!);
    expect(body.prompt_cache_key).toBe('conv-7');
    expect(JSON.stringify(body)).not.toContain('cache_control');
    expect(body.messages[0].content[1]).toEqual({ type: 'text', text: 'long document' });
    const plain: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'x' }] };
    expect(withoutCacheControl(plain)).toBe(plain);
  });
});
