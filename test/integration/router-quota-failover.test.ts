import { describe, expect, it } from 'vitest';
import { simulatedWorld } from '../helpers/simulated-world.js';

// The retry budget bounds extra attempts so that trouble does not draw a retry storm. A quota
// refusal with an announced window is not trouble: the failover it calls for goes unpaid (found by
// `explore`: 12-keys-orgs-long-waits at seed 94 answered 503 retry_budget_exhausted in 0 ms while
// Anthropic had capacity). Failovers after 5xx still pay.

function world(fault: string) {
  const provider = (id: string, vendor: string, model: string) =>
    `  - { id: ${id}, vendor: ${vendor}, models: [${model}], keys: [{ id: main, value: sk-sim-${id} }], quotas: [{ metric: requests, limit: 1000, per: 1m }], latency: { completionTokens: 3 } }`;
  const target = (id: string, vendor: string, model: string, path: string) => ({
    id,
    vendor,
    baseUrl: `http://sim.test/${id}/${path}`,
    keys: [{ id: 'main', env: `K_${id}` }],
    models: [model],
  });
  return simulatedWorld(
    `
version: 1
name: quota-failover
providers:
${provider('openai', 'openai', 'gpt-4o-mini')}
${provider('groq', 'groq', 'llama-3.1-8b-instant')}
faults:
  - ${fault}`,
    {
      providers: [
        target('openai', 'openai', 'gpt-4o-mini', 'v1'),
        target('groq', 'groq', 'llama-3.1-8b-instant', 'openai/v1'),
      ],
      // The budget is spent from the start: no paid extra attempt is ever allowed.
      retry: { budget: { ratio: 0, minPerWindow: 0 } },
      routing: { explore: { share: 0 } },
    },
    { K_openai: 'sk-sim-openai', K_groq: 'sk-sim-groq' },
  );
}

const ask = { model: 'auto', messages: [{ role: 'user', content: 'hi' }] };
const statuses = (sim: ReturnType<typeof world>['sim']) =>
  Array.from({ length: sim.ledger.size }, (_, i) => `${sim.ledger.row(i)!.provider}:${sim.ledger.row(i)!.status}`);

describe('failover with the retry budget spent', () => {
  it('goes unpaid after a 429 that announces its window, and the client gets 200', async () => {
    const { sim, route } = world(
      `{ id: wall, kind: status, match: { provider: [openai, groq] , firstN: 1 }, status: 429, hint: { form: seconds, after: 5s } }`,
    );
    const r = await route(ask);
    expect(r.kind === 'response' && r.status).toBe(200);
    expect(statuses(sim)).toHaveLength(2);
    expect(statuses(sim)[0]).toMatch(/:429$/);
    expect(statuses(sim)[1]).toMatch(/:200$/);
  });

  it('is paid after a 500, so the spent budget answers 503 retry_budget_exhausted', async () => {
    const { sim, route } = world(
      `{ id: boom, kind: status, match: { provider: [openai, groq], firstN: 1 }, status: 500 }`,
    );
    const r = await route(ask);
    expect(r.kind === 'response' && r.status).toBe(503);
    if (r.kind === 'response') expect(JSON.parse(r.body).error.code).toBe('retry_budget_exhausted');
    expect(statuses(sim)).toHaveLength(1);
  });
});
