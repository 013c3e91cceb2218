import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeClock } from '../../simulator/core/fake-clock.js';
import { createSimulator } from '../../simulator/simulator.js';
import { createMswHandlers } from '../../simulator/transports/msw-handlers.js';
import { startSimulatorServer, type SimulatorServer } from '../../simulator/transports/http-server.js';
import { ALL_VENDORS_YAML, chatCall, scenarioFrom, type ChatCall } from '../helpers/scenario.js';

const YAML = `${ALL_VENDORS_YAML}
faults:
  - { id: storm, kind: status, match: { provider: anthropic, everyNth: 3 }, status: 529 }
  - { id: lie, kind: status, match: { provider: openai, everyNth: 4 }, status: 429, hint: { form: http-date, after: 3s } }
  - { id: garbage, kind: status, match: { provider: groq, everyNth: 4 }, status: 503, hint: { form: seconds, raw: "later" } }
  - { id: cut, kind: stream-break, match: { provider: mistral }, afterChunks: 2, end: error-event }
  - { id: bad, kind: malformed, match: { provider: deepseek, everyNth: 2 }, mode: truncated-json }
  - { id: rst, kind: reset, match: { provider: ratelimit-draft, everyNth: 3 } }
`;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);
const VENDORS = ['openai', 'azure-openai', 'anthropic', 'gemini', 'groq', 'mistral', 'deepseek', 'ratelimit-draft'];

function calls(): ChatCall[] {
  const out: ChatCall[] = [];
  for (let round = 0; round < 5; round++) {
    for (const v of VENDORS) {
      out.push(chatCall(v, { stream: round % 2 === 1, prompt: `round ${round}` }));
      if (round === 0)
        out.push(chatCall(v, { key: 'sk-wrong' }), chatCall(v, { body: '{oops' }), chatCall(v, { model: 'nope' }));
    }
  }
  out.push({ method: 'GET', url: '/openai/v1/models', headers: { authorization: 'Bearer sk-openai' }, body: '' });
  out.push({ method: 'POST', url: '/openai/v2/whatever', headers: { authorization: 'Bearer sk-openai' }, body: '{}' });
  return out;
}

interface Seen {
  status: number | 'network-error';
  headers: Record<string, string>;
  body: string;
}

async function send(base: string, c: ChatCall): Promise<Seen> {
  try {
    const res = await fetch(base + c.url, {
      method: c.method,
      headers: c.headers,
      body: c.method === 'GET' ? undefined : c.body,
    });
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      if (!HOP_BY_HOP.has(k)) headers[k] = v;
    });
    let body = '';
    try {
      body = await res.text();
    } catch {
      body += '<stream error>';
    }
    return { status: res.status, headers, body };
  } catch {
    return { status: 'network-error', headers: {}, body: '' };
  }
}

const START = Date.UTC(2026, 2, 1, 12, 0, 0);
let server: SimulatorServer;
const msw = setupServer();

beforeAll(async () => {
  msw.listen({ onUnhandledRequest: 'bypass' });
});
afterAll(async () => {
  msw.close();
  await server?.close();
});

describe('HTTP server and msw handlers', () => {
  it('answer the same requests with identical statuses, headers and bodies for the same seed', async () => {
    const viaHttp = createSimulator(scenarioFrom(YAML), { seed: 99, clock: createFakeClock(START) });
    const viaMsw = createSimulator(scenarioFrom(YAML), { seed: 99, clock: createFakeClock(START) });
    server = await startSimulatorServer(viaHttp, { port: 0 });
    msw.use(...createMswHandlers(viaMsw, 'http://sim.test'));
    const list = calls();
    const a: Seen[] = [];
    const b: Seen[] = [];
    for (const c of list) {
      a.push(await send(server.origin, c));
      b.push(await send('http://sim.test', c));
    }
    expect(b).toEqual(a);
    // The comparison covers every kind of answer, not only successes.
    const statuses = new Set(a.map((s) => s.status));
    for (const s of [200, 400, 401, 404, 429, 503, 529, 'network-error'] as const) expect(statuses).toContain(s);
    expect(a.some((s) => s.body.includes('<stream error>') || s.body.includes('"error"'))).toBe(true);
    expect(viaMsw.ledger.size).toBe(viaHttp.ledger.size);
    const strip = (r: { arrivalAt: number; firstByteAt: number | null; endAt: number | null }) => ({
      ...r,
      arrivalAt: 0,
      firstByteAt: 0,
      endAt: 0,
    });
    expect([...viaMsw.ledger.rowsIterator()].map(strip)).toEqual([...viaHttp.ledger.rowsIterator()].map(strip));
  });
});
