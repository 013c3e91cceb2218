import { describe, expect, it } from 'vitest';
import { collectReply } from '../../test/helpers/collect-reply.js';
import { scenarioFrom } from '../../test/helpers/scenario.js';
import { createFakeClock } from '../core/fake-clock.js';
import { createSimulator } from '../simulator.js';

const yaml = (options: string) => `
version: 1
name: together
providers:
  - { id: together, vendor: together, models: [m], keys: [{ id: main, value: tg-sim }], latency: { completionTokens: 2 }, options: ${options} }
`;

async function finishChunk(options: string): Promise<{ usage?: unknown }> {
  const clock = createFakeClock(Date.UTC(2026, 0, 1));
  const sim = createSimulator(scenarioFrom(yaml(options)), { seed: 3, clock });
  const body = JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });
  const reply = await collectReply(
    sim.handle({
      method: 'POST',
      url: '/together/v1/chat/completions',
      headers: { authorization: 'Bearer tg-sim' },
      body,
    }),
    clock,
  );
  const frames = reply.body.split('\n\n').filter((l) => l.startsWith('data: {'));
  return JSON.parse(frames.at(-1)!.slice(6)) as { usage?: unknown };
}

describe('Together stream usage', () => {
  it('puts usage on the finish chunk unasked only under options.usageOnFinish (UNCONFIRMED)', async () => {
    expect((await finishChunk('{}')).usage).toBeUndefined();
    expect((await finishChunk('{ usageOnFinish: true }')).usage).toMatchObject({ completion_tokens: 2 });
  });
});
