import { describe, expect, it } from 'vitest';
import { collectReply } from '../../test/helpers/collect-reply.js';
import { chatCall, scenarioFrom } from '../../test/helpers/scenario.js';
import { createFakeClock } from '../core/fake-clock.js';
import { createSimulator } from '../simulator.js';

const START = Date.UTC(2026, 0, 1, 0, 0, 0);

// OpenAI with two keys in org-a and one in org-b, one request a minute per organisation.
function world(faults = '', scope = '') {
  const clock = createFakeClock(START);
  const sim = createSimulator(
    scenarioFrom(`
version: 1
name: scopes
providers:
  - id: openai
    vendor: openai
    models: [gpt-4o-mini]
    keys: [{ id: a1, value: sk-a1, org: org-a }, { id: a2, value: sk-a2, org: org-a }, { id: b1, value: sk-b1, org: org-b }]
    quotas: [{ metric: requests, limit: 1, per: 1m${scope} }]
faults:
${faults || '  []'}`),
    { seed: 1, clock },
  );
  const run = async (key: string) => {
    const r = await collectReply(sim.handle(chatCall('openai', { key })), clock);
    return { status: r.status, message: (JSON.parse(r.body) as { error?: { message: string } }).error?.message };
  };
  return { sim, run };
}

describe('the scope of a refusal that announced a wait', () => {
  it("records an organisation's limit as the organisation's, and OpenAI names it", async () => {
    const { sim, run } = world();
    expect((await run('sk-a1')).status).toBe(200);
    const refused = await run('sk-a2');
    expect(refused.status).toBe(429);
    expect(refused.message).toMatch(/^Rate limit reached for gpt-4o-mini in organization org-org-a on requests/);
    expect(sim.ledger.row(1)).toMatchObject({ key: 'a2', scope: 'org', org: 'org-a' });
    // org-b's bucket is its own.
    expect((await run('sk-b1')).status).toBe(200);
  });

  it("records a key's own limit as the key's, and OpenAI still names the organisation, as it always does", async () => {
    const { sim, run } = world('', ', scope: key');
    await run('sk-a1');
    const refused = await run('sk-a1');
    expect(refused.message).toMatch(/^Rate limit reached for gpt-4o-mini in organization org-org-a on requests/);
    expect(sim.ledger.row(1)).toMatchObject({ scope: 'key' });
    expect(sim.ledger.row(1)!.org).toBeUndefined();
    expect((await run('sk-a2')).status).toBe(200);
  });

  it("records a forced 429 as the key's unless its hint names a wider scope, naming the organisation either way", async () => {
    const { sim, run } = world(`
  - { id: k, kind: status, match: { key: a1 }, status: 429, hint: { form: ms, after: 400ms } }
  - { id: o, kind: status, match: { key: b1 }, status: 429, hint: { form: ms, after: 400ms, scope: org } }`);
    expect((await run('sk-a1')).message).toMatch(/in organization org-org-a/);
    expect((await run('sk-b1')).message).toMatch(/in organization org-org-b/);
    expect(sim.ledger.row(0)).toMatchObject({ scope: 'key', hintMs: 400 });
    expect(sim.ledger.row(1)).toMatchObject({ scope: 'org', org: 'org-b', hintMs: 400 });
  });

  it("names the organisation in Groq's and Anthropic's 429 whatever the scope, as their real texts do", async () => {
    const clock = createFakeClock(START);
    const sim = createSimulator(
      scenarioFrom(`
version: 1
name: scopes-others
providers:
  - { id: groq, vendor: groq, models: [llama-3.1-8b-instant], keys: [{ id: g1, value: sk-groq, org: org-g }] }
  - { id: anthropic, vendor: anthropic, models: [claude-haiku-4-5], keys: [{ id: c1, value: sk-anthropic, org: org-c }] }
faults:
  - { id: g, kind: status, match: { provider: groq }, status: 429, hint: { form: ms, after: 400ms } }
  - { id: c, kind: status, match: { provider: anthropic }, status: 429, hint: { form: ms, after: 400ms } }`),
      { seed: 1, clock },
    );
    const message = async (vendor: string) =>
      (JSON.parse((await collectReply(sim.handle(chatCall(vendor)), clock)).body) as { error: { message: string } })
        .error.message;
    expect(await message('groq')).toMatch(/^Rate limit reached for model `llama-3.1-8b-instant` in organization `org_/);
    expect(await message('anthropic')).toMatch(/^This request would exceed the rate limit for your organization \(/);
    expect([sim.ledger.row(0)!.scope, sim.ledger.row(1)!.scope]).toEqual(['key', 'key']);
  });

  it('records no scope on an answer that announced no wait', async () => {
    const { sim, run } = world();
    await run('sk-a1');
    expect(sim.ledger.row(0)!.scope).toBeUndefined();
  });
});
