import { describe, expect, it } from 'vitest';
import { simulatedWorld } from '../helpers/simulated-world.js';

// A provider that sends keep-alive filler is up and queueing (DeepSeek): a first-token timeout
// after filler only (`held`) fails the attempt over but opens no circuit. A provider that sends
// nothing at all is not known to be up, and three such timeouts open it. Seed 6 of
// 10-keep-alive-hold (docs/decisions/router-explores.md).

function world(fault: string) {
  return simulatedWorld(
    `
version: 1
name: held-timeout
providers:
  - { id: deepseek, vendor: deepseek, models: [deepseek-chat], keys: [{ id: main, value: sk-sim-ds }], quotas: [{ metric: requests, limit: 1000, per: 1m }], latency: { ttft: 50ms, completionTokens: 3 } }
faults:
  - ${fault}`,
    {
      providers: [
        {
          id: 'deepseek',
          vendor: 'deepseek',
          baseUrl: 'http://sim.test/deepseek',
          keys: [{ id: 'main', env: 'K' }],
          models: ['deepseek-chat'],
        },
      ],
      deadline: { default: '20s' },
      attempt: { firstTokenTimeout: '1s', timeout: '1s' },
      retry: { backoff: { base: '100ms', max: '200ms' } },
      breaker: { failureThreshold: 3, openFor: '5s', jitterRatio: 0 },
    },
    { K: 'sk-sim-ds' },
  );
}

const ask = { model: 'deepseek-chat', stream: true, messages: [{ role: 'user', content: 'hi' }] };

/** Gaps between one attempt's end and the next attempt's arrival, in ms. */
const gaps = (sim: ReturnType<typeof world>['sim']) => {
  const rows = [...sim.ledger.rowsIterator()];
  return rows.slice(1).map((r, i) => r.arrivalAt - rows[i]!.arrivalAt);
};

describe('first-token timeouts on one provider', () => {
  it('after keep-alive filler (held) open no circuit: the fourth attempt follows within the backoff', async () => {
    const { sim, route } = world(
      `{ id: hold, kind: keep-alive, match: { firstN: 3 }, holdFor: 20s, interval: 300ms, then: continue }`,
    );
    const r = await route(ask);
    expect(r.status).toBe(200);
    expect(r.attempts.map((a) => a.outcome)).toEqual(['timeout', 'timeout', 'timeout', 'ok']);
    expect(sim.ledger.size).toBe(4);
    // Each held attempt lasts the 1 s first-token timeout, then a backoff of at most 200 ms.
    for (const gap of gaps(sim)) expect(gap).toBeLessThan(1500);
  });

  it('after silence open the circuit for its window: the fourth attempt waits it out', async () => {
    const { sim, route } = world(`{ id: silent, kind: hang, match: { firstN: 3 } }`);
    const r = await route(ask);
    expect(r.status).toBe(200);
    expect(r.attempts.map((a) => a.outcome)).toEqual(['timeout', 'timeout', 'timeout', 'ok']);
    expect(sim.ledger.size).toBe(4);
    expect(gaps(sim).at(-1)).toBeGreaterThanOrEqual(5000);
  });
});
