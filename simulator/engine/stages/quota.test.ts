import { describe, expect, it } from 'vitest';
import { cachedChat, handedOn, refused, stageEngine } from '../../../test/helpers/engine-stages.js';
import { chatCall } from '../../../test/helpers/scenario.js';
import type { QuotaRule } from '../../quota/quota-set.js';
import { admit, type QuotaGate } from './quota.js';

const REQUESTS: QuotaRule = {
  id: 'requests/1m',
  metric: 'requests',
  limit: 3,
  windowMs: 60_000,
  algorithm: 'token-bucket',
  scope: 'org',
  sharedModels: false,
};

/** A gate that refuses everything with a 2.5 s wait, noting what the stage asked of it. */
function refusingGate(asked: string[]): QuotaGate {
  return {
    admit: () => {
      asked.push('admit');
      return {
        ok: false,
        violation: { rule: REQUESTS, requested: 1, used: 3, waitMs: 2500, tooLarge: false },
        buckets: [],
      };
    },
    chargeRejected: () => void asked.push('chargeRejected'),
    view: () => [],
    waitFor: () => 0,
  };
}

describe('admit', () => {
  it.each([
    ['openai', (input: number) => Math.max(input, 500)],
    ['azure-openai', (input: number) => input + 500],
    ['anthropic', (input: number) => input],
  ])('charges %s one request and tokens as the vendor admits them', (vendor, tokens) => {
    const { engine, clock } = stageEngine();
    const attempt = handedOn(admit(cachedChat(engine, chatCall(vendor, { maxTokens: 500 }), clock.now())));
    expect(attempt.costs).toEqual({
      requests: 1,
      tokens: tokens(attempt.tokensIn),
      'input-tokens': attempt.tokensIn,
      'output-tokens': 0,
      concurrency: 1,
    });
    expect(attempt.ticket.buckets.length).toBeGreaterThan(0);
    expect(attempt.emptyForMs).toBe(0);
  });

  it('takes the tokens the prompt cache keeps off the limits off the charge', () => {
    const { engine, clock } = stageEngine();
    const cached = cachedChat(engine, chatCall('anthropic'), clock.now());
    cached.uncounted = 4;
    expect(handedOn(admit(cached)).costs['input-tokens']).toBe(cached.tokensIn - 4);
  });

  it('refuses the request past the requests limit as rate_limited with the wait until one fits', () => {
    const { engine, clock } = stageEngine();
    const send = () => admit(cachedChat(engine, chatCall('anthropic'), clock.now()));
    for (let i = 0; i < 3; i++) handedOn(send());
    const attempt = refused(send());
    expect(attempt.refusal).toMatchObject({
      kind: 'rate_limited',
      violation: { metric: 'requests', limit: 3, used: 3, requested: 1 },
      hint: { ms: 20_000, form: 'vendor' },
    });
    expect(attempt.views[0]).toMatchObject({ limit: 3, remaining: 0 });
    expect(attempt.emptyForMs).toBeUndefined();
    expect(attempt.ticket).toBeUndefined();
  });

  it('reports how long the limits would refuse the same request again once the last unit is taken', () => {
    const { engine, clock } = stageEngine();
    const send = () => handedOn(admit(cachedChat(engine, chatCall('anthropic'), clock.now())));
    expect([send().emptyForMs, send().emptyForMs, send().emptyForMs]).toEqual([0, 0, 20_000]);
  });

  it('refuses a request no limit could ever hold as request_too_large, with no wait to offer', () => {
    const { engine, clock } = stageEngine(`
version: 1
name: stage-quota
providers:
  - { id: anthropic, vendor: anthropic, models: [claude-haiku-4-5], keys: [{ id: main, value: sk-anthropic }], quotas: [{ metric: input-tokens, limit: 10, per: 1m }] }
`);
    const call = chatCall('anthropic', { prompt: 'far too many words for a limit of ten tokens a minute' });
    const { refusal } = refused(admit(cachedChat(engine, call, clock.now())));
    expect(refusal).toMatchObject({ kind: 'request_too_large', violation: { metric: 'input-tokens', limit: 10 } });
    expect(refusal.hint).toBeUndefined();
  });

  it.each([
    ['openai', ['admit', 'chargeRejected']],
    ['anthropic', ['admit']],
  ])('asks the gate it is given, charging a refusal where %s counts them', (vendor, asked) => {
    const { engine, clock } = stageEngine();
    const seen: string[] = [];
    const attempt = refused(admit(cachedChat(engine, chatCall(vendor), clock.now()), refusingGate(seen)));
    expect(seen).toEqual(asked);
    expect(attempt.refusal.hint).toEqual({ ms: 2500, form: 'vendor' });
  });
});
