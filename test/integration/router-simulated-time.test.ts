import { describe, expect, it } from 'vitest';
import { SIM_START as START, simulatedWorld } from '../helpers/simulated-world.js';

function world(faults: string, routerOverrides: Record<string, unknown> = {}) {
  return simulatedWorld(
    `
version: 1
name: simulated-time
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim }], quotas: [{ metric: requests, limit: 1000, per: 1m }], latency: { completionTokens: 3 } }
faults:
${faults}`,
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
      ...routerOverrides,
    },
    { K: 'sk-sim' },
  );
}

const ask = { model: 'auto', messages: [{ role: 'user', content: 'hi' }] };

describe('router in simulated time (one fake clock for router and simulator)', () => {
  it('waits max(server wait, backoff) when no alternative remains, then succeeds', async () => {
    const { route, sim } = world(
      `  - { id: once, kind: status, match: { firstN: 1 }, status: 429, hint: { form: seconds, after: 2s } }`,
      { breaker: { jitterRatio: 0 } },
    );
    const r = await route(ask);
    expect(r.kind === 'response' && r.status).toBe(200);
    const [first, second] = [sim.ledger.row(0)!, sim.ledger.row(1)!];
    expect(first.status).toBe(429);
    expect(second.arrivalAt - first.arrivalAt).toBeGreaterThanOrEqual(2000);
    expect(second.arrivalAt - first.arrivalAt).toBeLessThan(2500);
  });

  it('fails fast with 503 and Retry-After when the wait does not fit the deadline', async () => {
    const { route, sim, clock } = world(
      `  - { id: once, kind: status, match: { firstN: 1 }, status: 429, hint: { form: seconds, after: 20s } }`,
      { deadline: { default: '5s' } },
    );
    const r = await route(ask);
    expect(r.kind === 'response' && r.status).toBe(503);
    // The announced 20 s, plus the circuit's re-open jitter (at most 10 %).
    if (r.kind === 'response') expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(20);
    if (r.kind === 'response') expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(22);
    expect(sim.ledger.size).toBe(1);
    expect(clock.now() - START).toBeLessThan(100);
  });

  it('never retries sooner than the backoff floor after a hint-less failure', async () => {
    const { route, sim } = world(`  - { id: flaky, kind: status, match: { firstN: 2 }, status: 500 }`, {
      retry: { backoff: { base: '300ms' } },
    });
    const r = await route(ask);
    expect(r.kind === 'response' && r.status).toBe(200);
    const arrivals = [...sim.ledger.rowsIterator()].map((x) => x.arrivalAt - START);
    expect(arrivals).toHaveLength(3);
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(150);
    expect(arrivals[2]! - arrivals[1]!).toBeGreaterThanOrEqual(150);
  });

  it('opens the circuit after consecutive failures and answers from the deadline without hammering', async () => {
    const { route, sim, clock } = world(`  - { id: down, kind: status, status: 503 }`, {
      deadline: { default: '3s' },
      breaker: { openFor: '1s', jitterRatio: 0 },
    });
    const r = await route(ask);
    expect(r.kind === 'response' && r.status).toBe(503);
    const arrivals = [...sim.ledger.rowsIterator()].map((x) => x.arrivalAt - START);
    // Overload opens the provider for 1 s, then 2 s: a handful of attempts, not a storm.
    expect(arrivals.length).toBeLessThanOrEqual(3);
    expect(clock.now() - START).toBeLessThanOrEqual(3100);
  });
});
