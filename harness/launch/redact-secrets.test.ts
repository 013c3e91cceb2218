import { describe, expect, it } from 'vitest';
import { redactSecrets, secretValues } from './redact-secrets.js';

describe('redactSecrets', () => {
  it('removes inline secrets from a router command, keeping what is not secret', () => {
    expect(
      redactSecrets(
        `OPENAI_API_KEY=sk-live-0123456789 ROUTER_TOKEN='tok en' PORT=8080 litellm --api-key abcd1234efgh --port 4000 --master_key=mk-999999999 --config x.yaml`,
      ),
    ).toBe(
      `OPENAI_API_KEY=[REDACTED] ROUTER_TOKEN=[REDACTED] PORT=8080 litellm --api-key [REDACTED] --port 4000 --master_key=[REDACTED] --config x.yaml`,
    );
  });

  it('removes any configured key value, Bearer tokens and URL passwords wherever they appear', () => {
    expect(
      redactSecrets(
        'node r.js $X sk-sim-openai-main-0001 -H "Authorization: Bearer abc.def" http://u:p4ss@127.0.0.1:4/v1',
        ['sk-sim-openai-main-0001'],
      ),
    ).toBe('node r.js $X [REDACTED] -H "Authorization: Bearer [REDACTED]" http://[REDACTED]@127.0.0.1:4/v1');
  });

  it('takes as secrets the values of variables whose names say so', () => {
    expect(secretValues({ HOME: '/home/someone', OPENAI_API_KEY: 'sk-0123456789', SHORT_KEY: 'x' })).toEqual([
      'sk-0123456789',
    ]);
  });
});
