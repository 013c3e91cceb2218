import { describe, expect, it } from 'vitest';
import { containsToken, Keyring, type KeyOwner } from './keyring.js';

const owner = (providerIndex: number, providerId: string, keyId: string, org = keyId): KeyOwner => ({
  providerIndex,
  providerId,
  keyId,
  org,
});

describe('Keyring.scan', () => {
  const ring = new Keyring();
  const a1 = owner(0, 'openai', 'k1', 'org-a');
  const a2 = owner(0, 'openai', 'k2', 'org-b');
  const a3 = owner(0, 'openai', 'k3', 'org-a');
  ring.add('sk-sim-openai-key-1', a1);
  ring.add('sk-sim-openai-key-2', a2);
  ring.add('sk-sim-openai-key-3', a3);
  ring.add('sk-ant-sim-key-0001', owner(1, 'anthropic', 'main'));

  it("finds another provider's key in any header, query parameter or the body, and another org's key", () => {
    const found = ring.scan(
      {
        authorization: 'Bearer sk-sim-openai-key-1',
        'x-fallback': 'sk-ant-sim-key-0001',
        'openai-project': 'sk-sim-openai-key-2',
      },
      new URLSearchParams('api_key=sk-ant-sim-key-0001&x=1'),
      '{"metadata":{"k":"Bearer sk-ant-sim-key-0001"}}',
      0,
      a1,
    );
    expect(found).toEqual([
      'header:x-fallback=foreign:anthropic/main',
      'header:openai-project=org:org-b/k2',
      'query:api_key=foreign:anthropic/main',
      'body=foreign:anthropic/main',
    ]);
    // Labels only: no value of any key leaves the scan.
    expect(found.join(' ')).not.toMatch(/sk-/);
  });

  it('leaves out the presented credential and keys of its own organisation', () => {
    expect(
      ring.scan(
        { authorization: 'Bearer sk-sim-openai-key-1', 'x-spare': 'sk-sim-openai-key-3' },
        new URLSearchParams(),
        '{}',
        0,
        a1,
      ),
    ).toEqual([]);
  });

  it("does not read a key inside a longer one as carried (groq's gsk-… ends with openai's sk-…)", () => {
    const ring = new Keyring();
    const openai = owner(0, 'openai', 'main');
    const groq = owner(1, 'groq', 'main');
    ring.add('sk-sim-compare-0002', openai);
    ring.add('gsk-sim-compare-0002', groq);
    expect(ring.scan({ authorization: 'Bearer gsk-sim-compare-0002' }, new URLSearchParams(), '', 1, groq)).toEqual([]);
    expect(
      ring.scan({ 'x-extra': 'sk-sim-compare-0002' }, new URLSearchParams(), '{"k":"sk-sim-compare-0002"}', 1, groq),
    ).toEqual(['header:x-extra=foreign:openai/main', 'body=foreign:openai/main']);
    expect(containsToken('Bearer sk-abcdefgh', 'sk-abcdefgh')).toBe(true);
    expect(containsToken('gsk-abcdefgh', 'sk-abcdefgh')).toBe(false);
    expect(containsToken('sk-abcdefgh2', 'sk-abcdefgh')).toBe(false);
    expect(containsToken('gsk-abcdefgh sk-abcdefgh', 'sk-abcdefgh')).toBe(true);
  });
});
