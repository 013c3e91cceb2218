import { fetch as undiciFetch, getGlobalDispatcher, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { isSimError } from '../../simulator/index.js';
import { parseRunScenario } from '../scenario/parse-run-scenario.js';
import { judgeInProcess } from './judge-in-process.js';
import type { SimulatedRunData } from './run-simulated.js';

// Code that reaches its providers through the npm undici package, not the global fetch, judged in
// process: undici's global dispatcher answers it from the same simulator msw serves.

const TTFT_MS = 250;
const RETRY_AFTER_S = 60;

function scenarioOf(yaml: string) {
  const parsed = parseRunScenario(yaml, { env: {} });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return { scenario: parsed.scenario, text: yaml };
}

/** One OpenAI provider, 2 s of 429s announcing a 60 s wait, half the requests streamed. */
const WALL = scenarioOf(`
version: 1
name: undici-wall
seed: 5
providers:
  - id: openai
    vendor: openai
    models: [gpt-4o-mini]
    keys: [{ id: main, value: sk-sim-openai-undici }]
    quotas: [{ metric: requests, limit: 10000, per: 1m }]
    latency: { ttft: ${TTFT_MS}ms, tokensPerSecond: 20, completionTokens: 20 }
faults:
  - { id: wall, kind: status, at: 2s, for: 2s, match: { provider: openai }, status: 429, hint: { form: seconds, after: ${RETRY_AFTER_S}s } }
load:
  mode: open
  duration: 8s
  rate: 2
  requests: { models: [auto], stream: 0.5, maxTokens: 32, deadline: 90s }
`);

/** Every answer takes 5 s to start; callers give up after 1 s. */
const SLOW = scenarioOf(`
version: 1
name: undici-slow
seed: 6
providers:
  - id: openai
    vendor: openai
    models: [gpt-4o-mini]
    keys: [{ id: main, value: sk-sim-openai-undici }]
    quotas: [{ metric: requests, limit: 10000, per: 1m }]
    latency: { ttft: 5s, tokensPerSecond: 50, completionTokens: 10 }
load:
  mode: open
  duration: 3s
  rate: 2
  requests: { models: [auto], stream: 0.5, maxTokens: 32, deadline: 1s }
`);

interface Upstream {
  status: number;
  header(name: string): string | undefined;
  body: ReadableStream<Uint8Array>;
  discard(): Promise<unknown>;
}

/** A call to the provider through undici's `request` or its `fetch`. */
type Send = (
  url: string,
  init: { headers: Record<string, string>; body: string; signal?: AbortSignal },
) => Promise<Upstream>;

const CLIENTS: Record<'undici.request' | 'undici.fetch', Send> = {
  'undici.request': async (url, init) => {
    const res = await request(url, { method: 'POST', ...init });
    const header = (name: string) => {
      const v = res.headers[name];
      return Array.isArray(v) ? v.join(', ') : v;
    };
    return {
      status: res.statusCode,
      header,
      body: (await import('node:stream')).Readable.toWeb(res.body) as ReadableStream<Uint8Array>,
      discard: () => res.body.dump(),
    };
  },
  'undici.fetch': async (url, init) => {
    const res = await undiciFetch(url, { method: 'POST', ...init });
    return {
      status: res.status,
      header: (name) => res.headers.get(name) ?? undefined,
      body: res.body as ReadableStream<Uint8Array>,
      discard: () => res.text(),
    };
  },
};

/** A one-provider router that sleeps an announced wait (its own setTimeout) and tries once more. */
function sleepingRouter(env: Record<string, string>, send: Send, o: { passSignal: boolean }) {
  const baseUrl = env.THROTTLELAB_OPENAI_BASE_URL!;
  const key = env.THROTTLELAB_OPENAI_API_KEY!;
  return async (req: Request): Promise<Response> => {
    const body = JSON.stringify({ ...((await req.json()) as object), model: 'gpt-4o-mini' });
    const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    const correlation = req.headers.get('x-throttlelab-correlation-id');
    if (correlation) headers['x-throttlelab-correlation-id'] = correlation;
    const signal = o.passSignal ? req.signal : undefined;
    for (let attempt = 0; ; attempt++) {
      const res = await send(`${baseUrl}/chat/completions`, { headers, body, signal });
      if (res.status !== 429 || attempt === 1) {
        const out = new Headers({ 'content-type': res.header('content-type') ?? 'application/json' });
        return new Response(res.body, { status: res.status, headers: out });
      }
      await res.discard();
      await new Promise((resolve) => setTimeout(resolve, Number(res.header('retry-after')) * 1000));
    }
  };
}

const verdicts = (d: SimulatedRunData) => Object.fromEntries(d.checks.map((c) => [c.id, c.verdict]));

describe.each(Object.keys(CLIENTS) as Array<keyof typeof CLIENTS>)('judgeInProcess, a router calling %s', (client) => {
  const send = CLIENTS[client];

  it('is answered by the simulator: it sleeps the announced 60 s and every caller is served', async () => {
    const before = getGlobalDispatcher();
    const d = await judgeInProcess({
      scenario: WALL,
      router: ({ env }) => sleepingRouter(env, send, { passSignal: true }),
    });
    // The dispatcher is undici's global one only while judging.
    expect(getGlobalDispatcher()).toBe(before);
    const walled = d.rows.filter((r) => r.status === 429);
    expect(walled.length).toBeGreaterThan(0);
    expect(walled.every((r) => r.hintMs === RETRY_AFTER_S * 1000)).toBe(true);
    // Each walled caller slept the whole minute, in simulated time, and was then served: no undici
    // timeout fired during the wait or the answers, and none of them failed.
    expect(d.outcomes.every((o) => o.status === 200 && o.error === null)).toBe(true);
    const waited = d.outcomes.filter((o) => o.endAt - o.sentAt >= RETRY_AFTER_S * 1000);
    expect(waited).toHaveLength(walled.length);
    expect(d.rows.filter((r) => r.status === 200)).toHaveLength(d.outcomes.length);
    expect(verdicts(d)).toMatchObject({
      'no-429': 'pass',
      deadline: 'pass',
      goodput: 'pass',
      'stream-integrity': 'pass',
      // New callers keep arriving at the closed door during the announced minute.
      'retry-after': 'fail',
    });
  }, 60_000);

  it('receives a stream chunk by chunk in simulated time: its first token at the simulated TTFT, its end later', async () => {
    const d = await judgeInProcess({
      scenario: WALL,
      router: ({ env }) => sleepingRouter(env, send, { passSignal: true }),
    });
    const streams = d.outcomes.filter((o) => o.stream && o.endAt - o.sentAt < RETRY_AFTER_S * 1000);
    expect(streams.length).toBeGreaterThan(2);
    for (const o of streams) {
      // Through the router, the caller saw the first token when the provider sent it, not at 0 and
      // not when the stream ended (a buffered body would make the two the same).
      expect(o.firstContentAt! - o.sentAt).toBeCloseTo(TTFT_MS, 0);
      expect(o.endAt - o.firstContentAt!).toBeGreaterThan(500);
      expect(o.streamEnd).toBe('done');
    }
  }, 60_000);

  it("passes the caller's abort on to the simulator: each attempt ends when the caller gives up", async () => {
    const d = await judgeInProcess({
      scenario: SLOW,
      router: ({ env }) => sleepingRouter(env, send, { passSignal: true }),
    });
    expect(d.rows.length).toBeGreaterThan(3);
    expect(d.outcomes.every((o) => o.error === 'client-timeout')).toBe(true);
    const gaveUpAt = new Map(d.outcomes.map((o) => [o.id, o.endAt]));
    for (const r of d.rows) {
      // The attempt ended at the provider the moment its caller gave up, before any answer.
      expect(r.end).toBe('client-abort');
      expect(r.endAt).toBe(gaveUpAt.get(r.correlationId!));
      expect(r.endAt! - r.arrivalAt).toBeLessThan(5000);
    }
  }, 60_000);

  it('leaves an attempt running when the router drops the signal', async () => {
    const d = await judgeInProcess({
      scenario: SLOW,
      router: ({ env }) => sleepingRouter(env, send, { passSignal: false }),
    });
    expect(d.rows.length).toBeGreaterThan(3);
    // Nothing stopped the attempts when their callers gave up: each ran on to its answer (at the
    // 5 s TTFT the late answer is thrown away, which hangs up; or it completes, or outlasts the run).
    expect(d.rows.every((r) => r.endAt === null || r.endAt - r.arrivalAt >= 5000)).toBe(true);
    expect(d.rows.some((r) => r.end === 'complete' && r.endAt !== null)).toBe(true);
  }, 60_000);

  it('fails a request to an origin the simulator does not serve, saying so', async () => {
    const errors: unknown[] = [];
    await judgeInProcess({
      scenario: SLOW,
      router: () => async () => {
        try {
          await send('http://api.openai.com/v1/chat/completions', { headers: {}, body: '{}' });
        } catch (error) {
          errors.push(error);
        }
        return new Response('{}', { status: 500 });
      },
    });
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) {
      // undici's fetch wraps a dispatcher's error as `TypeError: fetch failed` with it as the cause.
      const cause = client === 'undici.fetch' ? (e as Error).cause : e;
      expect(isSimError(cause, 'SIM_UNHANDLED_REQUEST')).toBe(true);
      expect((cause as Error).message).toMatch(
        /^Failed to send POST http:\/\/api\.openai\.com\/v1\/chat\/completions: no simulated provider is there\./,
      );
    }
  }, 60_000);
});

describe('judgeInProcess, a router calling both the global fetch and undici', () => {
  it('reaches the simulator once per call whichever it uses (msw answers the global fetch before the dispatcher)', async () => {
    let n = 0;
    const d = await judgeInProcess({
      scenario: SLOW,
      router: ({ env }) => {
        const viaFetch: Send = async (url, init) => {
          const res = await fetch(url, { method: 'POST', ...init });
          return {
            status: res.status,
            header: (name) => res.headers.get(name) ?? undefined,
            body: res.body!,
            discard: () => res.text(),
          };
        };
        const fetchRouter = sleepingRouter(env, viaFetch, { passSignal: true });
        const undiciRouter = sleepingRouter(env, CLIENTS['undici.request'], { passSignal: true });
        return (req) => (n++ % 2 === 0 ? fetchRouter(req) : undiciRouter(req));
      },
    });
    expect(n).toBeGreaterThan(3);
    expect(d.rows).toHaveLength(n);
    expect(new Set(d.rows.map((r) => r.correlationId)).size).toBe(n);
    // Both paths end the attempt when the caller gives up.
    expect(d.rows.every((r) => r.end === 'client-abort')).toBe(true);
  }, 60_000);
});
