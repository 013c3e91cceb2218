import { describe, expect, it } from 'vitest';
import { providerMessage } from './provider-message.js';

describe('providerMessage', () => {
  it("takes each vendor's message and leaves its request id and error type behind", () => {
    const anthropic = JSON.stringify({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' },
      request_id: 'req_011C3bbdf266511bbe9c4a41',
    });
    expect(providerMessage(anthropic)).toBe('prompt is too long: 210000 tokens > 200000 maximum');
    const openai = JSON.stringify({
      error: {
        message: "This model's maximum context length is 128000 tokens.",
        type: 'invalid_request_error',
        code: 'context_length_exceeded',
      },
    });
    expect(providerMessage(openai)).toBe("This model's maximum context length is 128000 tokens.");
    const gemini = JSON.stringify([
      { error: { code: 400, message: 'The input token count exceeds the maximum.', status: 'INVALID_ARGUMENT' } },
    ]);
    expect(providerMessage(gemini)).toBe('The input token count exceeds the maximum.');
    expect(providerMessage(JSON.stringify({ message: 'Input is too long for requested model.' }))).toBe(
      'Input is too long for requested model.',
    );
  });

  it('passes text on cut short, and says only that it was refused when the JSON has no message', () => {
    expect(providerMessage('x'.repeat(900))).toHaveLength(500);
    expect(providerMessage(JSON.stringify({ request_id: 'req_1' }))).toBe('the request was refused as invalid');
  });
});
