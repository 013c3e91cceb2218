import { describe, expect, it } from 'vitest';
import { parseRfc3339 } from '../signals/durations.js';
import { completionBody } from './openai-chunks.js';
import { withForward } from './with-forward.js';

// The object `completionBody` serialised before it wrote the common answer directly.
function serialised(
  id: unknown,
  model: string,
  createdMs: number,
  text: string,
  finishReason: unknown,
  prompt: unknown,
  completion: unknown,
  cached: unknown = 0,
): string {
  return JSON.stringify({
    id,
    object: 'chat.completion',
    created: Math.floor(createdMs / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text, refusal: null },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: (prompt as number) + (completion as number),
      ...((cached as number) > 0 ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
    },
  });
}

describe('completionBody', () => {
  const cases: Array<[unknown, string, number, string, unknown, unknown, unknown, unknown]> = [
    ['msg_1', 'claude-haiku-4-5', 1767261600123, 'Whisper gently.', 'stop', 60, 6, 0],
    ['msg_2', 'm', 0, '', 'length', 0, 0, 5],
    ['q"\\\u2028 é 😀', 'mo"del', 1.5e12, 'line\nbreak\t"quoted" \u0000 \ud800 lone', 'tool_calls', 1.5, -0, 0.25],
    ['big', 'm', 1e15, 'x', 'stop', 1e308, 1e308, 0],
    ['nan', 'm', NaN, 'x', 'stop', NaN, 3, NaN],
    [42, 'm', 1, 'x', 'stop', '60', 6, 0],
    [{ a: 1 }, 'm', 1, 'x', Object, 1, { n: 2 }, '5'],
    ['id', 'm', 1, 'x', undefined, 1, 2, -3],
  ];
  it.each(cases)(
    'writes what JSON.stringify writes (%j)',
    (id, model, created, text, finish, prompt, completion, cached) => {
      const body = completionBody(
        id as string,
        model,
        created,
        text,
        finish as string,
        prompt as number,
        completion as number,
        cached as number,
      );
      expect(body).toBe(serialised(id, model, created, text, finish, prompt, completion, cached));
    },
  );
});

describe('withForward', () => {
  it('is the spread of the client headers and then the adapter own, order and overrides included', () => {
    const forward: Record<string, string> = { 'x-b': '1', accept: 'client', '7': 'n', 'x-a': '2' };
    Object.defineProperty(forward, 'hidden', { value: 'no', enumerable: false });
    const own = { 'content-type': 'application/json', accept: 'application/json' };
    const out = withForward(forward, own);
    expect(out).toEqual({ ...forward, ...own });
    expect(Object.keys(out)).toEqual(Object.keys({ ...forward, ...own }));
  });

  it('keeps a header named __proto__ as a member, as the spread does', () => {
    const forward = JSON.parse('{"__proto__":"x","a":"b"}') as Record<string, string>;
    const out = withForward(forward, { c: 'd' });
    expect(Object.keys(out)).toEqual(['__proto__', 'a', 'c']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out).toEqual({ ...forward, c: 'd' });
  });
});

describe('parseRfc3339', () => {
  it("reads each text as it would without its memo of recent ones, past the memo's bound too", () => {
    const texts = [
      '2026-01-01T00:00:01Z',
      '2026-01-01T00:00:01Z',
      ' 2026-01-01T00:00:01Z',
      '2026-01-01T00:00:02Z',
      'not a date',
      'not a date',
      '2026-01-01T00:00:02.5+01:00',
      '2026-13-01T00:00:00Z',
      '2026-01-01T00:00:02Z',
    ];
    const expected = (t: string) =>
      /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/i.test(t.trim()) && !Number.isNaN(Date.parse(t))
        ? Date.parse(t)
        : undefined;
    for (const t of texts) expect(parseRfc3339(t)).toBe(expected(t));
    const seconds = Array.from({ length: 40 }, (_, i) => `2026-01-01T00:00:${String(i).padStart(2, '0')}Z`);
    for (const t of [...seconds, ...seconds.reverse(), ...texts]) expect(parseRfc3339(t)).toBe(expected(t));
  });
});
