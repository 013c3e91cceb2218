import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../core/fake-clock.js';
import { parseScenario } from '../scenario/parse-scenario.js';
import { createSimulator, type Simulator } from '../simulator.js';
import { createUndiciDispatcher } from './undici-dispatcher.js';

const ORIGIN = 'http://llm.test';

/** One OpenAI provider streaming 10 tokens at 2 a second (a chunk every 500 ms), and `faults`. */
function setup(faults = '[]') {
  const parsed = parseScenario(
    `
version: 1
name: dispatcher
providers:
  - id: openai
    vendor: openai
    models: [gpt-4o-mini]
    keys: [{ id: main, value: sk-openai }]
    quotas: [{ metric: requests, limit: 1000, per: 1m }]
    latency: { ttft: 100ms, tokensPerSecond: 2, completionTokens: 10 }
faults: ${faults}
`,
    { env: {} },
  );
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const clock = createFakeClock();
  const sim = createSimulator(parsed.scenario, { seed: 1, clock });
  return { sim, clock, dispatcher: createUndiciDispatcher(sim, ORIGIN) };
}

/** Dispatches a streamed chat with `bodyTimeout: 1000` to a handler that pauses on the head. */
function pausedOnHead(sim: Simulator, dispatcher: Dispatcher) {
  const events: string[] = [];
  let controller: Dispatcher.DispatchController | undefined;
  dispatcher.dispatch(
    {
      origin: ORIGIN,
      path: `${new URL(sim.endpoints(ORIGIN)[0]!.baseUrl).pathname}/chat/completions`,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-openai' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      bodyTimeout: 1000,
    },
    {
      onRequestStart: (c) => void (controller = c),
      onResponseStart: (c) => {
        events.push('start');
        c.pause();
      },
      onResponseData: () => void events.push('data'),
      onResponseEnd: () => void events.push('end'),
      onResponseError: (_c, e) => void events.push(`error:${e.name}`),
    },
  );
  return { events, resume: () => controller!.resume() };
}

describe('createUndiciDispatcher under backpressure', () => {
  it("never fires bodyTimeout while the caller has paused the body (undici's Client does not)", async () => {
    const { sim, clock, dispatcher } = setup();
    const { events, resume } = pausedOnHead(sim, dispatcher);
    // The simulator writes the whole stream meanwhile (10 chunks, 500 ms apart); the caller stays paused.
    for (let i = 0; i < 40; i++) await clock.advance(500);
    expect(events).toEqual(['start']);
    resume();
    expect(events.filter((e) => e.startsWith('error'))).toEqual([]);
    expect(events.filter((e) => e === 'data').length).toBeGreaterThan(1);
    expect(events.at(-1)).toBe('end');
  });

  it('fires bodyTimeout when no byte comes for bodyTimeout after the caller resumed', async () => {
    const { sim, clock, dispatcher } = setup(
      '[{ id: h, kind: hang, afterHeaders: true, match: { provider: openai } }]',
    );
    const { events, resume } = pausedOnHead(sim, dispatcher);
    await clock.advance(5000);
    expect(events).toEqual(['start']);
    resume();
    await clock.advance(999);
    expect(events).toEqual(['start']);
    await clock.advance(1);
    await clock.advance(0);
    expect(events).toEqual(['start', 'error:BodyTimeoutError']);
  });
});
