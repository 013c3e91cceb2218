import { describe, expect, it } from 'vitest';
import { collectReply } from '../../test/helpers/collect-reply.js';
import { scenarioFrom } from '../../test/helpers/scenario.js';
import { createFakeClock } from '../core/fake-clock.js';
import { createSimulator } from '../simulator.js';

const YAML = `
version: 1
name: cerebras
providers:
  - { id: cerebras, vendor: cerebras, models: [llama3.1-8b], keys: [{ id: main, value: csk-sim }], latency: { completionTokens: 3 } }
`;

function setup() {
  const clock = createFakeClock(Date.UTC(2026, 0, 1));
  const sim = createSimulator(scenarioFrom(YAML), { seed: 3, clock });
  const send = (method: string, url: string, body = '') =>
    collectReply(sim.handle({ method, url, headers: { authorization: 'Bearer csk-sim' }, body }), clock);
  return { sim, send };
}

type Chunk = { choices: Array<{ finish_reason: string | null }>; usage?: unknown; time_info?: unknown };
const chunks = (body: string): Chunk[] =>
  body
    .split('\n\n')
    .filter((l) => l.startsWith('data: {'))
    .map((l) => JSON.parse(l.slice(6)) as Chunk);

describe('Cerebras', () => {
  it('answers the SDK warm-up GET /v1/tcp_warming with 200 and keeps it out of the ledger', async () => {
    const { sim, send } = setup();
    const warm = await send('GET', '/cerebras/v1/tcp_warming');
    expect([warm.status, warm.body]).toEqual([200, '{}']);
    expect(sim.ledger.size).toBe(0);
    // Any other unknown path is still a recorded 404 attempt.
    expect((await send('GET', '/cerebras/v1/nothing')).status).toBe(404);
    expect(sim.ledger.size).toBe(1);
  });

  it('streams usage and time_info on the finish chunk without stream_options', async () => {
    const { send } = setup();
    const ask = { model: 'llama3.1-8b', stream: true, messages: [{ role: 'user', content: 'hello' }] };
    const all = chunks((await send('POST', '/cerebras/v1/chat/completions', JSON.stringify(ask))).body);
    const last = all.at(-1)!;
    expect(last.choices[0]!.finish_reason).toBe('stop');
    expect(last.usage).toMatchObject({ completion_tokens: 3, total_tokens: expect.any(Number) as number });
    expect(Object.keys(last.time_info as object)).toEqual([
      'queue_time',
      'prompt_time',
      'completion_time',
      'total_time',
      'created',
    ]);
    expect(all.slice(0, -1).every((c) => c.usage === undefined && c.time_info === undefined)).toBe(true);
  });
});
