import { setupServer } from 'msw/node';
import { fetch as undiciFetch, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../simulator/core/fake-clock.js';
import { createSimulator, type Simulator } from '../../simulator/simulator.js';
import { createMswHandlers } from '../../simulator/transports/msw-handlers.js';
import { createUndiciDispatcher } from '../../simulator/transports/undici-dispatcher.js';
import { ALL_VENDORS_YAML, chatCall, scenarioFrom, type ChatCall } from '../helpers/scenario.js';

// The same simulator behind msw (what the global fetch reaches) and behind the undici dispatcher
// (what undici's own request and fetch reach): code is judged the same whichever it calls.

const YAML = `${ALL_VENDORS_YAML}
faults:
  - { id: storm, kind: status, match: { provider: anthropic, everyNth: 3 }, status: 529 }
  - { id: lie, kind: status, match: { provider: openai, everyNth: 4 }, status: 429, hint: { form: http-date, after: 3s } }
  - { id: cut, kind: stream-break, match: { provider: mistral }, afterChunks: 2, end: error-event }
  - { id: bad, kind: malformed, match: { provider: deepseek, everyNth: 2 }, mode: truncated-json }
  - { id: rst, kind: reset, match: { provider: ratelimit-draft, everyNth: 3 } }
  - { id: cut-after-head, kind: reset, match: { provider: groq, everyNth: 3 }, afterHeaders: true }
`;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);
const VENDORS = ['openai', 'azure-openai', 'anthropic', 'gemini', 'groq', 'mistral', 'deepseek', 'ratelimit-draft'];
const START = Date.UTC(2026, 2, 1, 12, 0, 0);

function calls(): ChatCall[] {
  const out: ChatCall[] = [];
  for (let round = 0; round < 4; round++) {
    for (const v of VENDORS) {
      out.push(chatCall(v, { stream: round % 2 === 1, prompt: `round ${round}` }));
      if (round === 0) out.push(chatCall(v, { key: 'sk-wrong' }), chatCall(v, { body: '{oops' }));
    }
  }
  out.push({ method: 'GET', url: '/openai/v1/models', headers: { authorization: 'Bearer sk-openai' }, body: '' });
  return out;
}

interface Seen {
  status: number | 'network-error';
  headers: Record<string, string>;
  body: string;
}

type Send = (url: string, c: ChatCall) => Promise<Seen>;
type Dispatcher = ReturnType<typeof createUndiciDispatcher>;

const keep = (entries: Iterable<[string, string | string[] | undefined]>) => {
  const headers: Record<string, string> = {};
  for (const [k, v] of entries) if (!HOP_BY_HOP.has(k) && v !== undefined) headers[k] = String(v);
  return headers;
};

/** Through a fetch: the global one (msw), undici's, or Node's built-in one handed the dispatcher. */
const viaFetch =
  (f: (url: string, init: RequestInit) => Promise<Response>): Send =>
  async (url, c) => {
    try {
      const res = await f(url, { method: c.method, headers: c.headers, body: c.method === 'GET' ? undefined : c.body });
      let body = '';
      try {
        body = await res.text();
      } catch {
        body += '<stream error>';
      }
      return { status: res.status, headers: keep(res.headers), body };
    } catch {
      return { status: 'network-error', headers: {}, body: '' };
    }
  };

const msw = setupServer();
// Bypass: Node's built-in fetch reaches the dispatcher only for what msw leaves alone.
beforeAll(() => msw.listen({ onUnhandledRequest: 'bypass' }));
afterAll(() => msw.close());

/** Through undici's `request`. */
const viaRequest =
  (dispatcher: Dispatcher): Send =>
  async (url, c) => {
    try {
      const res = await request(url, {
        dispatcher,
        method: c.method as 'GET' | 'POST',
        headers: c.headers,
        body: c.method === 'GET' ? undefined : c.body,
      });
      let body = '';
      try {
        body = await res.body.text();
      } catch {
        body += '<stream error>';
      }
      return { status: res.statusCode, headers: keep(Object.entries(res.headers) as never), body };
    } catch {
      return { status: 'network-error', headers: {}, body: '' };
    }
  };

const simulator = () => createSimulator(scenarioFrom(YAML), { seed: 99, clock: createFakeClock(START) });
const strip = (r: { arrivalAt: number; firstByteAt: number | null; endAt: number | null }) => ({
  ...r,
  arrivalAt: 0,
  firstByteAt: 0,
  endAt: 0,
});
const rows = (s: Simulator) => [...s.ledger.rowsIterator()].map(strip);

describe('msw handlers and the undici dispatcher', () => {
  it('answer the same requests with identical statuses, headers, bodies and ledger rows for the same seed', async () => {
    const viaMsw = simulator();
    msw.use(...createMswHandlers(viaMsw, 'http://sim.test'));
    const others = {
      'undici fetch': simulator(),
      'undici request': simulator(),
      "Node's built-in fetch": simulator(),
    };
    const origin = 'http://undici.test';
    const sends: Record<keyof typeof others, Send> = {
      'undici fetch': viaFetch((url, init) => {
        const dispatcher = createUndiciDispatcher(others['undici fetch'], origin);
        return undiciFetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Response>;
      }),
      'undici request': viaRequest(createUndiciDispatcher(others['undici request'], origin)),
      // Node 20's fetch is undici 6: it hands the dispatcher legacy handlers.
      "Node's built-in fetch": viaFetch((url, init) =>
        fetch(url, {
          ...init,
          dispatcher: createUndiciDispatcher(others["Node's built-in fetch"], origin),
        } as RequestInit),
      ),
    };
    const seen: Seen[] = [];
    const other: Record<string, Seen[]> = Object.fromEntries(Object.keys(others).map((k) => [k, []]));
    for (const call of calls()) {
      seen.push(await viaFetch(fetch)(`http://sim.test${call.url}`, call));
      for (const [name, send] of Object.entries(sends)) other[name]!.push(await send(origin + call.url, call));
    }
    // The comparison covers every kind of answer, not only successes.
    const statuses = new Set(seen.map((s) => s.status));
    for (const s of [200, 400, 401, 429, 529, 'network-error'] as const) expect(statuses).toContain(s);
    expect(seen.some((s) => s.body.includes('<stream error>'))).toBe(true);
    expect(seen.some((s) => s.body.includes('"error"'))).toBe(true);
    for (const [name, sim] of Object.entries(others)) {
      expect({ name, seen: other[name] }).toEqual({ name, seen });
      expect({ name, rows: rows(sim) }).toEqual({ name, rows: rows(viaMsw) });
    }
    expect(viaMsw.ledger.size).toBe(calls().length);
  });
});
