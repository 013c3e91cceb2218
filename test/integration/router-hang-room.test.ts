import { describe, expect, it } from 'vitest';
import { simulatedWorld, SIM_START } from '../helpers/simulated-world.js';

// An attempt that hangs must not take the whole deadline where another target could serve (found
// by `explore --weather random`: test/regressions/weather-calm-three-*-seed19/10). Simulated time:
// the 30 s attempt timeout and the 5 s deadline are the subject, not the wall clock.

function world(leaveRoomToFailOver: boolean) {
  const provider = (id: string, vendor: string) =>
    `  - { id: ${id}, vendor: ${vendor}, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim-${id} }], latency: { ttft: 50ms, completionTokens: 3 } }`;
  const target = (id: string, vendor: string, path: string, quality: number) => ({
    id,
    vendor,
    baseUrl: `http://sim.test/${id}/${path}`,
    keys: [{ id: 'main', env: `K_${id}` }],
    models: [{ name: 'gpt-4o-mini', quality }],
  });
  return simulatedWorld(
    `
version: 1
name: hang-room
providers:
${provider('openai', 'openai')}
${provider('groq', 'groq')}
faults:
  - { id: hang, kind: hang, at: 1s, match: { provider: openai } }`,
    {
      providers: [target('openai', 'openai', 'v1', 1), target('groq', 'groq', 'openai/v1', 0.5)],
      routing: { weights: { cost: 0, latency: 0, reliability: 0, quality: 10, capacity: 0 }, explore: { share: 0 } },
      attempt: { leaveRoomToFailOver },
      deadline: { default: '5s' },
    },
    { K_openai: 'sk-sim-openai', K_groq: 'sk-sim-groq' },
  );
}

const ask = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

async function hangAfterWarmUp(leaveRoom: boolean) {
  const w = world(leaveRoom);
  // Measured first: openai answers in about 60 ms before the hang begins at 1 s.
  for (let i = 0; i < 3; i++) expect(await w.route(ask)).toMatchObject({ status: 200 });
  while (w.clock.now() < SIM_START + 1000) await w.clock.advance(10);
  const sentAt = w.clock.now();
  const r = await w.route(ask);
  const rows = Array.from({ length: w.sim.ledger.size }, (_, i) => w.sim.ledger.row(i)!).filter(
    (row) => row.arrivalAt >= sentAt,
  );
  return { r, took: w.clock.now() - sentAt, path: rows.map((row) => `${row.provider}:${row.end}`) };
}

describe('an attempt that hangs, with another target to fail over to', () => {
  it('is cut at half the time left and the request is served elsewhere within its deadline', async () => {
    const { r, took, path } = await hangAfterWarmUp(true);
    expect(r).toMatchObject({ status: 200 });
    expect(path).toEqual(['openai:client-abort', 'groq:complete']);
    expect(took).toBeGreaterThanOrEqual(2500);
    expect(took).toBeLessThan(3000);
  });

  it('takes the whole deadline when the cut is turned off (attempt.leaveRoomToFailOver: false)', async () => {
    const { r, path } = await hangAfterWarmUp(false);
    expect(r).toMatchObject({ status: 504 });
    expect(path).toEqual(['openai:client-abort']);
  });
});
