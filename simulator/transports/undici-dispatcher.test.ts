import { errors, request, type Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../core/fake-clock.js';
import { isSimError } from '../core/errors.js';
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
  const dispatcher = createUndiciDispatcher(sim, ORIGIN);
  const chat = (o: { headersTimeout?: number; bodyTimeout?: number } = {}) =>
    request(`${sim.endpoints(ORIGIN)[0]!.baseUrl}/chat/completions`, {
      dispatcher,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-openai' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      ...o,
    });
  return { sim, clock, chat, dispatcher };
}

/** The promise's state without waiting for it. */
function track<T>(p: Promise<T>) {
  const t: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  p.then(
    (value) => Object.assign(t, { settled: true, value }),
    (error: unknown) => Object.assign(t, { settled: true, error }),
  );
  return t;
}

describe('createUndiciDispatcher', () => {
  it("fails a request with undici's HeadersTimeoutError when a hung reply outlasts headersTimeout in simulated time", async () => {
    const { sim, clock, chat } = setup('[{ id: h, kind: hang, match: { provider: openai } }]');
    const t = track(chat({ headersTimeout: 5000 }));
    await clock.advance(4999);
    expect(t.settled).toBe(false);
    await clock.advance(1);
    expect(t.error).toBeInstanceOf(errors.HeadersTimeoutError);
    const [row] = [...sim.ledger.rowsIterator()];
    expect(row!.end).toBe('client-abort');
    expect(row!.endAt! - row!.arrivalAt).toBe(5000);
  });

  it("waits undici's default 300 s for headers when the caller sets none", async () => {
    const { clock, chat } = setup('[{ id: h, kind: hang, match: { provider: openai } }]');
    const t = track(chat());
    await clock.advance(299_999);
    expect(t.settled).toBe(false);
    await clock.advance(1);
    expect(t.error).toBeInstanceOf(errors.HeadersTimeoutError);
  });

  it('fails the body with BodyTimeoutError when no byte arrives for bodyTimeout after the head', async () => {
    const { sim, clock, chat } = setup('[{ id: h, kind: hang, afterHeaders: true, match: { provider: openai } }]');
    const res = track(chat({ bodyTimeout: 2000 }));
    await clock.advance(100);
    expect(res.value?.statusCode).toBe(200);
    const body = track(res.value!.body.text());
    const [row] = [...sim.ledger.rowsIterator()];
    await clock.set(row!.firstByteAt! + 1999);
    expect(body.settled).toBe(false);
    await clock.advance(1);
    await clock.advance(0);
    expect(body.error).toBeInstanceOf(errors.BodyTimeoutError);
    const [ended] = [...sim.ledger.rowsIterator()];
    expect(ended!.end).toBe('client-abort');
    expect(ended!.endAt! - ended!.firstByteAt!).toBe(2000);
  });

  it('lets a stream longer than bodyTimeout finish when its chunks come closer together than that', async () => {
    const { sim, clock, chat } = setup();
    const res = track(chat({ bodyTimeout: 1000 }));
    await clock.advance(100);
    const body = track(res.value!.body.text());
    for (let i = 0; i < 20 && !body.settled; i++) await clock.advance(500);
    expect(body.error).toBeUndefined();
    expect(body.value).toContain('data: [DONE]');
    const [row] = [...sim.ledger.rowsIterator()];
    expect(row!.end).toBe('complete');
    // The stream ran about 5 s, five times the idle limit.
    expect(row!.endAt! - row!.arrivalAt).toBeGreaterThan(4000);
  });

  it('hands each chunk over when the simulator writes it, not at the end', async () => {
    const { clock, chat } = setup();
    const res = track(chat());
    await clock.advance(100);
    const seen: string[] = [];
    res.value!.body.on('data', (chunk: Buffer) => seen.push(chunk.toString()));
    await clock.advance(600);
    const early = seen.join('');
    expect(early).toContain('"content"');
    expect(early).not.toContain('[DONE]');
    await clock.advance(10_000);
    expect(seen.join('')).toContain('[DONE]');
  });

  it("stops the simulator's reply when the caller aborts", async () => {
    const { sim, clock } = setup();
    const ac = new AbortController();
    const t = track(
      request(`${sim.endpoints(ORIGIN)[0]!.baseUrl}/chat/completions`, {
        dispatcher: createUndiciDispatcher(sim, ORIGIN),
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-openai' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
        signal: ac.signal,
      }),
    );
    await clock.advance(50);
    ac.abort();
    await clock.advance(1);
    expect((t.error as Error).name).toBe('AbortError');
    const [row] = [...sim.ledger.rowsIterator()];
    expect(row!.end).toBe('client-abort');
    expect(row!.endAt! - row!.arrivalAt).toBe(50);
  });

  it('fails a request for another origin with SIM_UNHANDLED_REQUEST, reaching no network', async () => {
    const { sim } = setup();
    const error = await request('http://127.0.0.1:9/v1/models', {
      dispatcher: createUndiciDispatcher(sim, ORIGIN),
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isSimError(error, 'SIM_UNHANDLED_REQUEST')).toBe(true);
    expect((error as Error).message).toMatchInlineSnapshot(
      `"Failed to send GET http://127.0.0.1:9/v1/models: no simulated provider is there. The simulator answers only http://llm.test in process; point the client at a base URL from its endpoints."`,
    );
    expect(sim.ledger.size).toBe(0);
  });
});

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
