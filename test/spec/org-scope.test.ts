import { describe, expect, it } from 'vitest';
import { referenceWith } from '../fixtures/broken/reference-with.js';
import { ignoringTheOrganisation } from '../fixtures/broken/signals.js';
import { limit } from '../helpers/limit.js';
import { digestChecks, judgeScenario } from './judge-pack.js';

// SIG-3's organisation scope, in simulated time over several seeds: on 17-org-wide-waits a router
// that keeps a wait announced for an organisation on the key that drew it (sending to org-a's other
// key inside it) fails retry-after, naming both keys and the organisation; the reference, which
// closes every key of the organisation and no other, passes it.
const SCENARIO = '17-org-wide-waits';
const SEEDS = [1, 2, 3, 5];
const broken = referenceWith({ transport: ignoringTheOrganisation() }, 'keeps waits per key, not per organisation');
const reference = referenceWith({}, 'nothing');
const two = limit(2);

async function retryAfter(launcher: typeof broken, seed: number) {
  const checks = await judgeScenario(SCENARIO, launcher, seed);
  const failed = checks.filter((c) => c.verdict === 'fail').map((c) => c.id);
  return { r: checks.find((c) => c.id === 'retry-after')!, failed, digest: digestChecks(checks) };
}

describe('a wait announced for an organisation covers its other keys', () => {
  it.concurrent.each(SEEDS)('fails a router that waits per key only (seed %d)', { timeout: 120_000 }, async (seed) => {
    const { r, failed, digest } = await two(() => retryAfter(broken, seed));
    // Only the clause's check: every request is still served, by b1 or Anthropic.
    expect(failed, digest).toEqual(['retry-after']);
    expect(
      r.evidence.some((e) => / on key a[12] for organisation org-a, which key a[12] shares[;,]/.test(e.detail)),
    ).toBe(true);
  });

  it.concurrent.each(SEEDS)('passes the reference router (seed %d)', { timeout: 120_000 }, async (seed) => {
    const { r, failed, digest } = await two(() => retryAfter(reference, seed));
    expect(failed, digest).toEqual([]);
    expect(r.verdict, digest).toBe('pass');
    expect(r.details).toMatchObject({ windows: expect.any(Number) as number });
  });
});
