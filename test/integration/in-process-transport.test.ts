import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../../simulator/core/fake-clock.js';
import { createSimulator } from '../../simulator/simulator.js';
import { createInProcessTransport } from '../../bin/in-process-transport.js';
import { scenarioFrom } from '../helpers/scenario.js';
import type { HttpCall } from '../../router/index.js';

// The in-process transport of simulated runs must leave the simulator's ledger as a socket would:
// a body abandoned mid-stream (the router disposes it after an error event or a malformed frame)
// ends the reply there, recorded as client-abort, not played to its end.
function world() {
  const clock = createFakeClock(Date.UTC(2026, 0, 1));
  const sim = createSimulator(
    scenarioFrom(`
version: 1
name: in-process-transport
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim }], latency: { ttft: 100ms, tokensPerSecond: 10, completionTokens: 20 } }
`),
    { seed: 1, clock },
  );
  const transport = createInProcessTransport(sim);
  const call: HttpCall = {
    method: 'POST',
    url: 'http://sim.test/openai/v1/chat/completions',
    headers: { authorization: 'Bearer sk-sim', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  };
  return { clock, sim, transport, call };
}

/** Sends the stream and reads its first chunk, moving simulated time as needed. */
async function firstChunk(w: ReturnType<typeof world>, signal: AbortSignal) {
  const sent = w.transport.send(w.call, signal);
  let res: Awaited<typeof sent> | undefined;
  void sent.then((r) => (res = r));
  while (!res) await w.clock.advance(10);
  const it = res.body[Symbol.asyncIterator]();
  const read = it.next();
  let first: IteratorResult<Uint8Array | string> | undefined;
  void read.then((r) => (first = r));
  while (!first) await w.clock.advance(10);
  expect(first.done).toBe(false);
  return res;
}

describe('in-process transport', () => {
  it('sends nothing and fails at once for a signal already aborted, as undici does', async () => {
    const w = world();
    const ac = new AbortController();
    ac.abort();
    await expect(w.transport.send(w.call, ac.signal)).rejects.toThrow('aborted');
    expect(w.sim.ledger.row(0)).toBeUndefined();
  });

  it('ends the reply as client-abort when the router abandons the body mid-stream', async () => {
    const w = world();
    const res = await firstChunk(w, new AbortController().signal);
    res.dispose();
    await w.clock.advance(5_000);
    const row = w.sim.ledger.row(0)!;
    expect(row.end).toBe('client-abort');
    expect(row.endAt! - row.arrivalAt).toBeLessThan(1_000);
  });

  it('ends the reply as client-abort when the attempt is aborted mid-stream', async () => {
    const w = world();
    const ac = new AbortController();
    await firstChunk(w, ac.signal);
    ac.abort();
    await w.clock.advance(5_000);
    expect(w.sim.ledger.row(0)!.end).toBe('client-abort');
  });

  it('plays a reply read to its end as complete', async () => {
    const w = world();
    const res = await firstChunk(w, new AbortController().signal);
    const rest = (async () => {
      for await (const _ of res.body);
    })();
    let done = false;
    void rest.then(() => (done = true));
    while (!done) await w.clock.advance(100);
    res.dispose();
    expect(w.sim.ledger.row(0)!.end).toBe('complete');
  });
});
