import { describe, expect, it } from 'vitest';
import { handedOn, refused, stageEngine } from '../../../test/helpers/engine-stages.js';
import { chatCall } from '../../../test/helpers/scenario.js';
import type { Reply } from '../reply.js';
import { route } from './route.js';

describe('route', () => {
  it('answers a path under no provider with a bare 404 naming the served prefixes, recording nothing', () => {
    const { engine, clock } = stageEngine();
    const reply = route(engine, { method: 'POST', url: '/nope/v1/chat?x=1', headers: {}, body: '' }, clock.now());
    expect((reply as Reply).status).toBe(404);
    const body = (reply as Reply).steps.find((s) => s.op === 'write');
    expect(JSON.parse(body?.op === 'write' ? body.data : '').error.message).toMatch(
      /^Failed to route POST \/nope\/v1\/chat: no simulated provider "nope"\. Providers are served under \/openai, \/azure-openai, /,
    );
    expect(engine.ledger.size).toBe(0);
  });

  it('refuses a path the vendor does not serve as not_found, naming whose key came', () => {
    const { engine, clock } = stageEngine();
    const call = { ...chatCall('openai'), url: '/openai/v1/nowhere' };
    const attempt = refused(route(engine, call, clock.now()));
    expect(attempt.refusal).toEqual({ kind: 'not_found', message: 'Invalid URL (POST /v1/nowhere)' });
    expect(attempt.start).toMatchObject({ provider: 'openai', key: 'main', endpoint: 'other', model: null });
  });

  it('refuses a path with a malformed escape as not found rather than throwing', () => {
    const { engine, clock } = stageEngine();
    const call = { ...chatCall('azure-openai'), url: '/azure-openai/openai/deployments/%E0%A4%A/chat/completions' };
    expect(refused(route(engine, call, clock.now())).refusal.kind).toBe('not_found');
  });

  it('opens the attempt with the API, the model and stream of the path, the retry count and the correlation header', () => {
    const { engine, clock } = stageEngine();
    const call = chatCall('gemini', { stream: true });
    call.headers['x-stainless-retry-count'] = '3';
    call.headers['x-throttlelab-correlation-id'] = 'c-9';
    const attempt = handedOn(route(engine, call, clock.now()));
    expect(attempt.start).toEqual({
      arrivalAt: clock.now(),
      provider: 'gemini',
      vendor: 'gemini',
      key: 'main',
      endpoint: 'chat',
      model: 'gemini-2.5-flash',
      correlationId: 'c-9',
      sdkRetryCount: 3,
      stream: true,
      carried: [],
    });
    expect(attempt.ctx).toMatchObject({ providerId: 'gemini', org: 'main', model: 'gemini-2.5-flash' });
  });

  it('identifies a key without judging it, and notes another provider key carried elsewhere', () => {
    const { engine, clock } = stageEngine();
    const call = chatCall('openai', { key: 'sk-anthropic' });
    call.headers['x-extra'] = 'sk-mistral';
    const attempt = handedOn(route(engine, call, clock.now()));
    expect(attempt.key.kind).toBe('foreign');
    expect(attempt.start.key).toBe('foreign:anthropic/main');
    expect(attempt.start.carried).toEqual(['header:x-extra=foreign:mistral/main']);
    expect(attempt.ctx.org).toBe('unknown');
  });

  it('draws the same request id for the same seed and ledger size, another for another seed', () => {
    const id = (seed: number) => {
      const { engine, clock } = stageEngine(undefined, seed);
      return handedOn(route(engine, chatCall('openai'), clock.now())).ctx.requestId;
    };
    expect(id(5)).toMatch(/^[0-9a-f]{32}$/);
    expect(id(5)).toBe(id(5));
    expect(id(6)).not.toBe(id(5));
  });
});
