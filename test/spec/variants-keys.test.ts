import { describe, expect, it } from 'vitest';
import type { Transport } from '../../router/index.js';
import { carryingKeyOf, inHeader } from '../fixtures/broken/keys.js';
import { referenceWith } from '../fixtures/broken/reference-with.js';
import { digestChecks, judgeScenario } from './judge-pack.js';

type Call = Parameters<Transport['send']>[0];

// KEY-1 broken other ways than the spec's own breaker (a spare header): wherever a foreign key
// travels, and whoever it belongs to, key-isolation fails.
const VARIANTS: Array<[name: string, scenario: string, place: Parameters<typeof carryingKeyOf>]> = [
  // The key of another vendor in the query string (Gemini's own `?key=` form).
  [
    'query-parameter',
    '01-steady-state',
    [
      'openai',
      'anthropic',
      (call: Call, key: string) => ({ ...call, url: `${call.url}${call.url.includes('?') ? '&' : '?'}key=${key}` }),
    ],
  ],
  // In the JSON body, as a router that forwards its whole credential record as `user` metadata.
  [
    'body-field',
    '01-steady-state',
    [
      'gemini',
      'openai',
      (call: Call, key: string) => ({ ...call, body: call.body?.replace(/^\{/, `{"user":"${key}",`) }),
    ],
  ],
  // Another organisation's key of the same provider, as a "fallback" header: one pool for both orgs.
  ['other-organisation', '12-keys-orgs-long-waits', ['openai', 'openai', inHeader('x-fallback-key'), 'b1']],
  // The credential itself is another provider's: refused with a 401, which the router fails over.
  [
    'foreign-credential',
    '01-steady-state',
    ['openai', 'anthropic', (call: Call, key: string) => ({ ...call, headers: { ...call.headers, 'x-api-key': key } })],
  ],
];

describe('KEY-1 variants: a foreign key anywhere in the request fails key-isolation', () => {
  it.each(VARIANTS)('%s (%s)', { timeout: 120_000 }, async (name, scenario, place) => {
    const checks = await judgeScenario(scenario, referenceWith({ transport: carryingKeyOf(...place) }, name));
    const keys = checks.find((c) => c.id === 'key-isolation')!;
    expect(keys.verdict, digestChecks(checks)).toBe('fail');
    expect(keys.evidence.length).toBeGreaterThan(0);
  });
});
