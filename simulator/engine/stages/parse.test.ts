import { describe, expect, it } from 'vitest';
import { authenticatedChat, handedOn, refused, stageEngine } from '../../../test/helpers/engine-stages.js';
import { chatCall } from '../../../test/helpers/scenario.js';
import { parse } from './parse.js';

function parsed(call: ReturnType<typeof chatCall>, bodyTooLarge = false) {
  const { engine, clock } = stageEngine();
  return parse(authenticatedChat(engine, call, clock.now()), bodyTooLarge);
}

describe('parse', () => {
  it('learns the model, the stream flag, the correlation marker and the prompt tokens from the body', () => {
    const attempt = handedOn(parsed(chatCall('openai', { stream: true, prompt: 'hello there [tl:c-4]' })));
    expect(attempt.chat).toMatchObject({ model: 'gpt-4o-mini', stream: true });
    expect(attempt.start).toMatchObject({ model: 'gpt-4o-mini', stream: true, correlationId: 'c-4' });
    expect(attempt.ctx.model).toBe('gpt-4o-mini');
    expect(attempt.tokensIn).toBeGreaterThan(5);
  });

  it('keeps a correlation header over a marker in the prompt', () => {
    const call = chatCall('openai', { prompt: 'x [tl:from-prompt]' });
    call.headers['x-throttlelab-correlation-id'] = 'from-header';
    expect(handedOn(parsed(call)).start.correlationId).toBe('from-header');
  });

  it('refuses a body over the size limit as payload_too_large before reading it', () => {
    expect(refused(parsed(chatCall('openai', { body: '{' }), true)).refusal).toEqual({ kind: 'payload_too_large' });
  });

  it('refuses a body that is not JSON as bad_json', () => {
    expect(refused(parsed(chatCall('openai', { body: '{"model": ' }))).refusal).toEqual({ kind: 'bad_json' });
  });

  it('refuses a body the vendor API rejects with its own error', () => {
    const body = JSON.stringify({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'x' }] });
    expect(refused(parsed(chatCall('anthropic', { body }))).refusal).toMatchObject({
      kind: 'invalid_request',
      message: 'max_tokens: Field required',
    });
  });

  it('refuses a model the provider does not serve as model_not_found, recording the model asked for', () => {
    const attempt = refused(parsed(chatCall('openai', { model: 'gpt-9' })));
    expect(attempt.refusal).toEqual({ kind: 'model_not_found' });
    expect(attempt.start.model).toBe('gpt-9');
    expect(attempt.tokensIn).toBe(0);
  });
});
