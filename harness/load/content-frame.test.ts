import { describe, expect, it } from 'vitest';
import { createRng } from '../../simulator/index.js';
import { contentFrameText } from './content-frame.js';

const head = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4o-mini"';
const simulator = (token: string) =>
  `${head},"service_tier":"default","system_fingerprint":"fp_0123456789","choices":[{"index":0,"delta":{"content":${token}},"logprobs":null,"finish_reason":null}]}`;
const router = (token: string) => `${head},"choices":[{"index":0,"delta":{"content":${token}},"finish_reason":null}]}`;

// What a full parse says the frame holds, when it is a bare content frame; undefined otherwise.
function parsedContent(data: string): string | undefined {
  let j: unknown;
  try {
    j = JSON.parse(data);
  } catch {
    return undefined;
  }
  const f = j as { choices?: unknown; usage?: unknown; error?: unknown };
  if (f === null || typeof f !== 'object' || f.error !== undefined || (f.usage !== undefined && f.usage !== null))
    return undefined;
  if (!Array.isArray(f.choices) || f.choices.length !== 1) return undefined;
  const c = f.choices[0] as { index?: unknown; delta?: Record<string, unknown>; finish_reason?: unknown };
  if (c.index !== 0 || c.finish_reason !== null || !c.delta || Object.keys(c.delta).join() !== 'content')
    return undefined;
  return typeof c.delta.content === 'string' ? c.delta.content : undefined;
}

// Characters that matter to JSON strings and to the frame's syntax.
const ALPHABET = [
  'a',
  ' ',
  '"',
  '\\',
  '/',
  'u',
  '0',
  'n',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '\u0001',
  '\n',
  '\u2028',
  'é',
  '\ud83d',
  '\ude00',
];

describe('contentFrameText', () => {
  it('reads the content of the frames the simulator and the router write, escapes decoded', () => {
    for (const text of ['Hello', '', ' "quoted" \\ back\nslash', 'tab\there \u0000 nul', '😀 é \u2028', '\ud800 lone'])
      for (const frame of [simulator(JSON.stringify(text)), router(JSON.stringify(text))])
        expect(contentFrameText(frame)).toBe(text);
    expect(contentFrameText(router(String.raw`"\u00e9\/\b"`))).toBe('é/\b');
  });

  it('leaves every other frame to a full parse', () => {
    for (const frame of [
      `${head},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
      `${head},"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
      `${head},"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}],"usage":{"prompt_tokens":1}}`,
      `${head},"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}`,
      `${head},"choices":[{"index":1,"delta":{"content":"x"},"finish_reason":null}]}`,
      `${head},"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}],"choices":[]}`,
      `${head},"choices":[{"index":0,"delta":{"content":"a\u0001b"},"finish_reason":null}]}`,
      `${head},"choices":[{"index":0,"delta":{"content":"a\\x"},"finish_reason":null}]}`,
      router('"x"').replace('1767225600', '01767225600'),
      router('"x"').replace('{"index"', '{ "index"'),
      '{"error":{"message":"boom"}}',
    ])
      expect(contentFrameText(frame)).toBeUndefined();
  });

  it('never disagrees with JSON.parse on 20 000 seeded mutations of content frames', () => {
    const rng = createRng(12);
    const int = (min: number, max: number) => min + Math.floor(rng.next() * (max - min + 1));
    let recognised = 0;
    for (let i = 0; i < 20_000; i++) {
      const text = Array.from({ length: int(0, 6) }, () => ALPHABET[int(0, ALPHABET.length - 1)]).join('');
      let frame = (i % 2 ? simulator : router)(JSON.stringify(text));
      // Mutate a few characters: insert, delete or replace, anywhere in the frame.
      for (let m = int(0, 2); m > 0; m--) {
        const at = int(0, frame.length - 1);
        const ch = ALPHABET[int(0, ALPHABET.length - 1)]!;
        const op = int(0, 2);
        frame = frame.slice(0, at) + (op === 1 ? '' : ch) + frame.slice(op === 0 ? at : at + 1);
      }
      const fast = contentFrameText(frame);
      if (fast !== undefined) {
        recognised++;
        expect(parsedContent(frame)).toBe(fast);
      }
    }
    // The comparison above must have run on many frames, mutated ones among them.
    expect(recognised).toBeGreaterThan(5_000);
  });
});
