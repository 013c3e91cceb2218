import { describe, expect, it } from 'vitest';
import { contentChunkToken } from './content-chunk.js';
import { createOpenAICompatibleAdapter } from './openai-compatible.js';

const head = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4o-mini"';
const upstream = (token: string) =>
  `${head},"service_tier":"default","system_fingerprint":"fp_0123456789","choices":[{"index":0,"delta":{"content":${token}},"logprobs":null,"finish_reason":null}],"usage":null}`;

// The content a full parse finds in a bare content chunk; undefined for any other text.
function parsedContent(data: string): string | undefined {
  let j: unknown;
  try {
    j = JSON.parse(data);
  } catch {
    return undefined;
  }
  const f = j as { choices?: unknown; usage?: unknown; error?: unknown; x_groq?: unknown };
  if (f === null || typeof f !== 'object' || f.error !== undefined || f.x_groq !== undefined) return undefined;
  if ((f.usage !== undefined && f.usage !== null) || !Array.isArray(f.choices) || f.choices.length !== 1)
    return undefined;
  const c = f.choices[0] as { index?: unknown; delta?: Record<string, unknown>; finish_reason?: unknown };
  if (c.index !== 0 || c.finish_reason !== null || !c.delta || Object.keys(c.delta).join() !== 'content')
    return undefined;
  return typeof c.delta.content === 'string' ? c.delta.content : undefined;
}

const ALPHABET = ['a', ' ', '"', '\\', '/', 'u', '0', 'n', '{', '}', '[', ']', ',', ':', '\u0001', '\n', 'é', '\ud83d'];

describe('contentChunkToken', () => {
  it('gives the content token of a bare content chunk and nothing for a role, finish or usage chunk', () => {
    expect(contentChunkToken(upstream('"Hi \\"there\\""'))).toBe('"Hi \\"there\\""');
    expect(contentChunkToken(upstream('""'))).toBe('""');
    for (const frame of [
      `${head},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
      `${head},"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
      `${head},"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`,
      `${head},"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}],"usage":{"prompt_tokens":1}}`,
      upstream('"a\u0001b"'),
    ])
      expect(contentChunkToken(frame)).toBeUndefined();
  });

  it('never disagrees with JSON.parse on 20 000 seeded mutations of content chunks', () => {
    let seed = 7;
    // mulberry32: a seeded generator (the router has no Rng of its own to import here).
    const next = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const int = (max: number) => Math.floor(next() * (max + 1));
    let recognised = 0;
    for (let i = 0; i < 20_000; i++) {
      let frame = upstream(
        JSON.stringify(Array.from({ length: int(6) }, () => ALPHABET[int(ALPHABET.length - 1)]).join('')),
      );
      for (let m = int(2); m > 0; m--) {
        const at = int(frame.length - 1);
        const op = int(2);
        frame =
          frame.slice(0, at) +
          (op === 1 ? '' : ALPHABET[int(ALPHABET.length - 1)]) +
          frame.slice(op === 0 ? at : at + 1);
      }
      const token = contentChunkToken(frame);
      if (token === undefined) continue;
      recognised++;
      expect(JSON.parse(token)).toBe(parsedContent(frame));
    }
    expect(recognised).toBeGreaterThan(5_000);
  });

  it('lets the OpenAI-compatible translator pass a content chunk on unchanged, counted as content', () => {
    const t = createOpenAICompatibleAdapter('openai').streamTranslator({} as never, false);
    const data = upstream('"Hello"');
    expect(t.onEvent(data, undefined)).toEqual({ chunks: [data], content: true, usage: undefined });
    expect(t.onEvent(upstream('""'), undefined)).toEqual({
      chunks: [upstream('""')],
      content: false,
      usage: undefined,
    });
    expect(t.onEvent('[DONE]', undefined).usage).toEqual({ promptTokens: 0, completionTokens: 1, estimated: true });
  });
});
