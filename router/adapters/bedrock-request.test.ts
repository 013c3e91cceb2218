import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../core/types.js';
import { toConverse } from './bedrock-request.js';

const hint = { cache_control: { type: 'ephemeral' } };
const point = { cachePoint: { type: 'default' } };

describe('toConverse and cache hints', () => {
  it('puts a cachePoint after each block or tool a client marked, in system, messages and tools', () => {
    const req = {
      model: 'm',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'long rules', ...hint }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a document', ...hint },
            { type: 'text', text: 'the question' },
          ],
        },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } }, ...hint }],
    } as unknown as ChatRequest;
    const body = toConverse(req, 64) as {
      system: unknown[];
      messages: Array<{ content: unknown[] }>;
      toolConfig: { tools: unknown[] };
    };
    expect(body.system).toEqual([{ text: 'long rules' }, point]);
    expect(body.messages[0]!.content).toEqual([{ text: 'a document' }, point, { text: 'the question' }]);
    expect(body.toolConfig.tools).toEqual([expect.objectContaining({ toolSpec: expect.anything() }), point]);
  });

  it('adds none without hints, and never more than four', () => {
    const plain = toConverse({ model: 'm', messages: [{ role: 'user', content: 'hi' }] } as ChatRequest, 64);
    expect(JSON.stringify(plain)).not.toContain('cachePoint');
    const many = {
      model: 'm',
      messages: [
        { role: 'user', content: Array.from({ length: 6 }, (_, i) => ({ type: 'text', text: `p${i}`, ...hint })) },
      ],
    } as unknown as ChatRequest;
    expect(JSON.stringify(toConverse(many, 64)).match(/cachePoint/g)).toHaveLength(4);
  });

  it('ends the last turn with a cachePoint for a top-level cache_control, but not a tool-result turn', () => {
    const auto = {
      model: 'm',
      cache_control: { type: 'ephemeral' },
      messages: [
        { role: 'system', content: 'rules' },
        { role: 'user', content: 'question' },
      ],
    } as unknown as ChatRequest;
    const body = toConverse(auto, 64) as { messages: Array<{ content: unknown[] }> };
    expect(body.messages.at(-1)!.content).toEqual([{ text: 'question' }, point]);
    const afterTool = {
      model: 'm',
      cache_control: { type: 'ephemeral' },
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      ],
    } as unknown as ChatRequest;
    expect(JSON.stringify(toConverse(afterTool, 64))).not.toContain('cachePoint');
  });
});
