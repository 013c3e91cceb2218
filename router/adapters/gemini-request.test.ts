import { describe, expect, it } from 'vitest';
import { toGemini } from './gemini-request.js';

describe('toGemini', () => {
  it('passes the seed in generationConfig beside the other sampling parameters', () => {
    const body = toGemini(
      {
        model: 'gemini-2.5-flash',
        messages: [{ role: 'user', content: 'hi' }],
        temperature: 0.3,
        stop: 'END',
        seed: 7,
      },
      64,
    ) as { generationConfig: Record<string, unknown> };
    expect(body.generationConfig).toEqual({ maxOutputTokens: 64, temperature: 0.3, stopSequences: ['END'], seed: 7 });
  });
});
