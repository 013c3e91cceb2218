import { describe, expect, it } from 'vitest';
import { simulatedWorld } from '../helpers/simulated-world.js';

// A request whose target failed waits before trying it again. Other requests' answers wake it
// early, and each re-decided wait starts a fresh backoff: the failed target must still come back
// once the first wait would have ended (`excludedUntil`), or a request woken often enough never
// retries before its deadline (seed 6 of 10-keep-alive-hold, r6-32;
// docs/decisions/router-explores.md).

describe('a waiter woken early by others', () => {
  it('tries its failed target again once its first wait would have ended', async () => {
    const { clock, router } = simulatedWorld(
      `
version: 1
name: woken-waiter
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim }], quotas: [{ metric: requests, limit: 100000, per: 1m }], latency: { ttft: 20ms, completionTokens: 3 } }
faults:
  - { id: once, kind: status, match: { firstN: 1 }, status: 500 }`,
      {
        providers: [
          {
            id: 'openai',
            vendor: 'openai',
            baseUrl: 'http://sim.test/openai/v1',
            keys: [{ id: 'main', env: 'K' }],
            models: ['gpt-4o-mini'],
          },
        ],
        deadline: { default: '8s' },
        retry: { backoff: { base: '1s', max: '1s' } },
        routing: { explore: { share: 0 } },
      },
      { K: 'sk-sim' },
    );
    const ask = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
    let done = false;
    const first = router.route(ask).finally(() => (done = true));
    // Others arrive every 50 ms for 6 s; each answer wakes the waiter.
    const others: Array<Promise<unknown>> = [];
    for (let t = 0; t < 6000 && !done; t += 50) {
      others.push(router.route(ask));
      await clock.advance(50);
    }
    while (!done) await clock.advance(10);
    const r = await first;
    expect(r.kind === 'response' && r.status).toBe(200);
    expect(r.attempts.map((a) => a.status)).toEqual([500, 200]);
    // Back after its first wait (a backoff of 0.5 to 1 s), not held to its deadline.
    const again = r.attempts[1]!.startedAt - r.attempts[0]!.endedAt;
    expect(again).toBeGreaterThanOrEqual(450);
    expect(again).toBeLessThan(1500);
    for (let i = 0; i < 50; i++) await clock.advance(20);
    await Promise.all(others);
  });
});
