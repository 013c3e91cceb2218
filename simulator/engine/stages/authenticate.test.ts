import { describe, expect, it } from 'vitest';
import { handedOn, refused, stageEngine } from '../../../test/helpers/engine-stages.js';
import { chatCall } from '../../../test/helpers/scenario.js';
import { authenticate } from './authenticate.js';
import { route } from './route.js';

function authenticated(call: ReturnType<typeof chatCall>) {
  const { engine, clock } = stageEngine();
  return authenticate(handedOn(route(engine, call, clock.now())));
}

describe('authenticate', () => {
  it('hands on the owner of a key of the provider the request reached', () => {
    const attempt = handedOn(authenticated(chatCall('anthropic')));
    expect(attempt.owner).toEqual({ providerIndex: 2, providerId: 'anthropic', keyId: 'main', org: 'main' });
  });

  it('refuses a request with no key as missing_api_key', () => {
    const call = chatCall('openai');
    delete call.headers.authorization;
    expect(refused(authenticated(call)).refusal).toEqual({ kind: 'missing_api_key' });
  });

  it.each(['sk-anthropic', 'sk-nobody-knows'])('refuses %s at openai as invalid_api_key, the key masked', (key) => {
    const { refusal } = refused(authenticated(chatCall('openai', { key })));
    expect(refusal).toEqual({ kind: 'invalid_api_key', maskedKey: `****${key.slice(-4)}` });
  });

  it('refuses a request the vendor header checks reject given a valid key', () => {
    const call = chatCall('anthropic');
    delete call.headers['anthropic-version'];
    expect(refused(authenticated(call)).refusal.kind).toBe('invalid_request');
  });
});
