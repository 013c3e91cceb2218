import { describe, expect, it } from 'vitest';
import { formatRequestFacts, requestFacts } from './request-facts.js';

describe('requestFacts', () => {
  it('reads the same facts from a chat request and its Anthropic translation', () => {
    const chat = requestFacts('openai-chat', {
      model: 'm',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      ],
      max_tokens: 64,
      temperature: 0.5,
      stop: 'END',
      tools: [{ type: 'function', function: { name: 'f' } }],
    });
    const anthropic = requestFacts('anthropic', {
      model: 'm',
      system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'f', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'ok' }] },
      ],
      max_tokens: 64,
      temperature: 0.5,
      stop_sequences: ['END'],
      tools: [{ name: 'f', input_schema: {} }],
    });
    expect(formatRequestFacts(chat)).toBe(formatRequestFacts(anthropic));
    expect(chat).toMatchObject({ mt: 64, t: 0.5, st: ['END'], tools: ['f'], tr: ['c1'], cc: 1, pt: 1 });
  });

  it('reads Gemini generationConfig, whose tool results carry no ids', () => {
    const f = requestFacts('gemini', {
      contents: [{ role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] }],
      generationConfig: { maxOutputTokens: 16, topP: 0.9, stopSequences: ['x'], seed: 4 },
    });
    expect(f).toMatchObject({ mt: 16, tp: 0.9, st: ['x'], sd: 4, trn: 1, n: 1 });
  });

  it('keeps nothing for a plain request', () => {
    expect(
      formatRequestFacts(requestFacts('openai-chat', { model: 'm', messages: [{ role: 'user', content: 'hi' }] })),
    ).toBe(undefined);
  });
});
