// The control API's event stream (GET /_throttlelab/events), as the live dashboard reads it.
import { afterEach, describe, expect, it } from 'vitest';
import { attemptFeed, type PageAttempt } from '../../bin/dashboard/dashboard-logic.js';
import { chatCall } from '../helpers/scenario.js';
import { serve, type Served } from '../helpers/serve.js';

const YAML = `
version: 1
name: events
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-openai }], quotas: [{ metric: requests, limit: 3, per: 1m }], latency: { completionTokens: 4 } }
  - { id: anthropic, vendor: anthropic, models: [claude-haiku-4-5], keys: [{ id: main, value: sk-anthropic }], latency: { completionTokens: 4 } }
faults:
  - { id: storm, kind: status, at: 10m, for: 30s, status: 529, match: { provider: [anthropic] } }
`;

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

interface Tick {
  t: number;
  attempts: PageAttempt[];
  skipped: number;
  totals: Record<string, Record<string, number>>;
  quota: Record<string, Array<{ rule: string; remaining: number; limit: number }>>;
  faults: Array<{ id: string; active: boolean; origin: string }>;
}

/** Reads server-sent events until `done` says enough (bounded by a deadline). */
async function readEvents(origin: string, done: (events: Array<[string, unknown]>) => boolean) {
  const controller = new AbortController();
  const res = await fetch(`${origin}/_throttlelab/events`, { signal: controller.signal });
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = res.body!.getReader();
  const events: Array<[string, unknown]> = [];
  let text = '';
  const deadline = Date.now() + 15_000;
  try {
    while (!done(events) && Date.now() < deadline) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      text += Buffer.from(value).toString();
      let end: number;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const event = /^event: (.+)$/m.exec(block)?.[1] ?? 'message';
        events.push([event, JSON.parse(/^data: (.+)$/m.exec(block)![1]!)]);
      }
    }
  } finally {
    controller.abort();
  }
  return events;
}

describe('GET /_throttlelab/events', () => {
  it('says hello with the fault catalogue, then ticks with attempts, totals, announced waits, quota and faults', async () => {
    served = await serve(YAML);
    const s = served;
    let sent = false;
    const events = await readEvents(s.origin, (ev) => {
      if (!sent && ev.length > 0) {
        sent = true;
        // Four to OpenAI (a quota of three: the fourth is a 429 with its wait), one to Anthropic.
        void (async () => {
          for (const v of ['openai', 'openai', 'openai', 'openai', 'anthropic']) {
            const c = chatCall(v);
            await (await fetch(s.origin + c.url, { method: c.method, headers: c.headers, body: c.body })).arrayBuffer();
          }
          s.sim.addFault({ id: 'live-storm', kind: 'status', status: 503, for: '1m', match: { provider: ['openai'] } });
        })();
      }
      const ticks = ev.filter(([e]) => e === 'tick').map(([, d]) => d as Tick);
      return ticks.reduce((n, t) => n + t.attempts.length, 0) >= 5 && ticks.some((t) => t.faults.some((f) => f.active));
    });
    const [first, data] = events[0]!;
    expect(first).toBe('hello');
    expect(data).toMatchObject({
      scenario: 'events',
      providers: [
        { id: 'openai', vendor: 'openai' },
        { id: 'anthropic', vendor: 'anthropic' },
      ],
      catalogue: [{ id: 'storm', kind: 'status', status: 529 }],
    });
    const ticks = events.filter(([e]) => e === 'tick').map(([, d]) => d as Tick);
    const attempts = ticks.flatMap((t) => t.attempts);
    expect(attempts.map((a) => [a[1], a[2]])).toEqual([
      ['openai', 200],
      ['openai', 200],
      ['openai', 200],
      ['openai', 429],
      ['anthropic', 200],
    ]);
    // The 429 announces its wait; the successes announce none.
    expect(attempts[3]![3]).toBeGreaterThan(0);
    expect(attempts[0]![3]).toBeNull();
    const last = ticks.at(-1)!;
    expect(last.totals).toEqual({ openai: { 200: 3, 429: 1 }, anthropic: { 200: 1 } });
    expect(last.quota.openai!.find((b) => b.rule.startsWith('requests'))).toMatchObject({ limit: 3, remaining: 0 });
    expect(last.faults.map((f) => [f.id, f.origin, f.active])).toEqual([
      ['storm', 'scenario', false],
      ['live-storm', 'live', true],
    ]);
    // Times run from the simulator's start, in seconds.
    expect(attempts.every((a) => a[0] >= 0 && a[0] <= last.t)).toBe(true);
  });

  it('lets a page that reads the ledger after the hello draw every attempt once, those before it included', async () => {
    served = await serve(YAML);
    const s = served;
    const call = async (vendor: string) => {
      const c = chatCall(vendor);
      await (await fetch(s.origin + c.url, { method: c.method, headers: c.headers, body: c.body })).arrayBuffer();
    };
    // Made before the page opened: only the ledger has them.
    for (const v of ['openai', 'anthropic', 'openai']) await call(v);
    const feed = attemptFeed();
    const drawn: PageAttempt[] = [];
    let read = false;
    let seen = 0;
    await readEvents(s.origin, (ev) => {
      const hello = ev.find(([e]) => e === 'hello')?.[1] as { startedAt: number } | undefined;
      if (hello && !read) {
        read = true;
        void (async () => {
          // One attempt ends after the hello and before the ledger read: in both, drawn once.
          await call('anthropic');
          const { rows } = (await (await fetch(`${s.origin}/_throttlelab/ledger`)).json()) as {
            rows: Parameters<ReturnType<typeof attemptFeed>['backlog']>[0];
          };
          drawn.push(...feed.backlog(rows, hello.startedAt));
          await call('openai');
        })();
      }
      for (; seen < ev.length; seen++) {
        const [e, d] = ev[seen]!;
        if (e === 'tick') drawn.push(...feed.stream((d as Tick).attempts));
      }
      return drawn.length >= 5;
    });
    expect(drawn.map((a) => a[6]).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(drawn.map((a) => a[1])).toEqual(['openai', 'anthropic', 'openai', 'anthropic', 'openai']);
  });

  it('is refused to a page of another origin, as the rest of the control API', async () => {
    served = await serve(YAML);
    const res = await fetch(`${served.origin}/_throttlelab/events`, { headers: { origin: 'https://evil.example' } });
    expect(res.status).toBe(403);
  });
});
