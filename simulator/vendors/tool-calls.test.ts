import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.js';
import {
  checkAnthropicToolTurns,
  checkConverseToolTurns,
  checkGeminiToolTurns,
  checkOpenAIToolTurns,
  seedToolCall,
} from './tool-calls.js';

describe('seeded tool calls', () => {
  it('call an offered tool with arguments that fit its schema, the same for the same seed', () => {
    const offers = [
      { name: 'a', schema: { type: 'object', properties: { n: { type: 'integer' }, u: { enum: ['c', 'f'] } } } },
      { name: 'b', schema: {}, forced: true },
    ];
    const one = seedToolCall(offers, createRng(7), 'call_');
    expect(one).toEqual(seedToolCall(offers, createRng(7), 'call_'));
    expect(one.name).toBe('b');
    const free = seedToolCall([offers[0]!], createRng(7), 'toolu_01');
    expect(free.id).toMatch(/^toolu_01[A-Za-z0-9]{24}$/);
    const args = JSON.parse(free.argsJson) as { n: number; u: string };
    expect(Number.isInteger(args.n) && args.u).toBe('c');
  });
});

describe('tool-result turns checked as each vendor checks them', () => {
  const call = { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: {} }] };
  it('OpenAI: a tool message needs its call, and every call its tool message', () => {
    expect(checkOpenAIToolTurns([{ role: 'user' }, call, { role: 'tool', tool_call_id: 'c1' }])).toBeUndefined();
    expect(checkOpenAIToolTurns([{ role: 'user' }, { role: 'tool', tool_call_id: 'c1' }])?.message).toMatch(
      /must be a response to a preceeding message with 'tool_calls'/,
    );
    expect(checkOpenAIToolTurns([call, { role: 'user' }])?.message).toMatch(/did not have response messages: c1/);
  });
  it('Anthropic: a tool_result needs its tool_use in the message just before, and the reverse', () => {
    const use = { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] };
    const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x' }] };
    expect(checkAnthropicToolTurns([{ role: 'user', content: 'q' }, use, result])).toBeUndefined();
    expect(checkAnthropicToolTurns([{ role: 'user', content: 'q' }, result])?.message).toMatch(
      /unexpected `tool_use_id` found in `tool_result` blocks: t1/,
    );
    expect(checkAnthropicToolTurns([use, { role: 'user', content: 'no' }])?.message).toMatch(
      /`tool_use` ids were found without `tool_result` blocks immediately after: t1/,
    );
  });
  it('Anthropic: a tool_use id used twice in the history is refused at the later block', () => {
    const use = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'k' },
        { type: 'tool_use', id: 'call_0' },
      ],
    };
    const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_0', content: 'x' }] };
    const q = { role: 'user', content: 'q' };
    expect(checkAnthropicToolTurns([q, use, result])).toBeUndefined();
    expect(checkAnthropicToolTurns([q, use, result, use, result])?.message).toBe(
      'messages.3.content.1: `tool_use` ids must be unique',
    );
  });
  it('Bedrock: toolResult blocks answer the toolUse blocks just before, in a turn of their own', () => {
    const use = { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'f', input: {} } }] };
    const result = { toolResult: { toolUseId: 't1', content: [{ text: 'x' }] } };
    const q = { role: 'user', content: [{ text: 'q' }] };
    expect(checkConverseToolTurns([q, use, { role: 'user', content: [result] }])).toBeUndefined();
    expect(checkConverseToolTurns([q, { role: 'user', content: [result] }])?.message).toMatch(
      /number of toolResult blocks at messages.1.content exceeds/,
    );
    expect(checkConverseToolTurns([q, use, { role: 'user', content: [result, { text: 'and?' }] }])?.message).toBe(
      'messages.2.content: Conversation blocks and tool result blocks cannot be provided in the same turn.',
    );
  });
  it('Gemini: a functionResponse turn comes right after a functionCall turn', () => {
    const fc = { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] };
    const fr = { role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] };
    expect(checkGeminiToolTurns([{ role: 'user', parts: [{ text: 'q' }] }, fc, fr])).toBeUndefined();
    expect(checkGeminiToolTurns([{ role: 'user', parts: [{ text: 'q' }] }, fr])?.message).toMatch(
      /function response turn comes immediately after a function call turn/,
    );
  });
});
