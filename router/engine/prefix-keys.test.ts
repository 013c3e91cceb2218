import { beforeAll, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../core/types.js';
import { prefixesToRemember, prefixKeys } from './prefix-keys.js';
import { loadPrefixHasher } from './prefix-hasher.js';

beforeAll(() => loadPrefixHasher());

// Turns of 1 000 characters (250 tokens), alternating user and assistant.
const turns = (n: number, tag = '') =>
  Array.from({ length: n }, (_, i) => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: `${tag}${i}:${'x'.repeat(999 - String(i).length - tag.length)}`,
  }));
const chat = (messages: ChatRequest['messages'], extra: Partial<ChatRequest> = {}) =>
  ({ model: 'openai/gpt-4o-mini', messages, ...extra }) as ChatRequest;

describe('prefixKeys', () => {
  it('keys each message boundary past the minimum, longest first, with its tokens', () => {
    const p = prefixKeys(chat(turns(6)), 1024);
    // 4 096 characters are reached after the fifth turn.
    expect(p.map((x) => x.tokens)).toEqual([1500, 1250]);
    expect(prefixKeys(chat(turns(4)), 1024)).toEqual([]);
  });

  it("finds the previous turn's whole prompt among the next turn's prefixes", () => {
    const first = prefixKeys(chat(turns(7)), 1024);
    const next = prefixKeys(chat(turns(9)), 1024);
    const remembered = prefixesToRemember(first).map((x) => x.key);
    expect(next.map((x) => x.key)).toContain(remembered[0]);
    expect(next.map((x) => x.key)).toContain(remembered[1]);
  });

  it('keys differ when the model, the tools, a role or any message text differ', () => {
    const base = prefixKeys(chat(turns(6)), 1024).map((x) => x.key);
    const others = [
      chat(turns(6), { model: 'openai/gpt-4o' }),
      chat(turns(6), { tools: [{ type: 'function', function: { name: 'f' } }] } as Partial<ChatRequest>),
      chat(turns(6).map((m, i) => (i === 0 ? { ...m, role: 'system' } : m))),
      chat(turns(6).map((m, i) => (i === 2 ? { ...m, content: `${m.content.slice(0, -1)}y` } : m))),
    ];
    for (const o of others) {
      const keys = prefixKeys(o, 1024).map((x) => x.key);
      expect(keys.length).toBe(2);
      for (const k of keys) expect(base).not.toContain(k);
    }
  });

  it("keys the prompt and, last, the client's prompt_cache_key when it names one", () => {
    const named = prefixKeys(chat(turns(6), { prompt_cache_key: 'conv-1' } as Partial<ChatRequest>), 1024);
    const unnamed = prefixKeys(chat(turns(6)), 1024);
    expect(named).toEqual([...unnamed, { key: 'k:openai/gpt-4o-mini\u0000conv-1', tokens: 0, named: true }]);
    // Remembered under the prompt's keys and the name: a turn sent without the name finds it.
    expect(prefixesToRemember(named).map((p) => p.key)).toEqual([...unnamed.map((p) => p.key), named[2]!.key]);
  });

  it('keys the same tools alike whatever order their fields came in and wherever a breakpoint is', () => {
    const parameters = { type: 'object', properties: { city: { type: 'string' } } };
    const asChat = [{ type: 'function', function: { name: 'f', description: 'd', parameters } }];
    const asMessages = [
      { type: 'function', function: { name: 'f', parameters, description: 'd' }, cache_control: { type: 'ephemeral' } },
    ];
    const keys = (tools: unknown) => prefixKeys(chat(turns(6), { tools } as Partial<ChatRequest>), 1024);
    expect(keys(asMessages)).toEqual(keys(asChat));
    expect(keys([{ ...asChat[0], function: { name: 'g', description: 'd', parameters } }])).not.toEqual(keys(asChat));
  });
});
