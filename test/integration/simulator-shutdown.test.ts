import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { LedgerRow } from '../../simulator/index.js';
import { chatCall } from '../helpers/scenario.js';
import { serve, type Served } from '../helpers/serve.js';

// Closing the simulator with attempts in flight (hangs, holds, slow streams: the evidence a chaos
// run needs most) ends every one of them in the ledger, and its sinks (--ledger-out) get every row.

const YAML = `
version: 1
name: shutdown
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-openai }], latency: { ttft: 20s, completionTokens: 4 } }
  - { id: deepseek, vendor: deepseek, models: [deepseek-chat], keys: [{ id: main, value: sk-deepseek }], latency: { completionTokens: 4 } }
faults:
  - { id: hang, kind: hang, match: { provider: openai, everyNth: 2 } }
  - { id: hold, kind: keep-alive, holdFor: 60s, interval: 1s, match: { provider: deepseek } }
`;

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** Sends a request and ignores however it ends (the server will cut it). */
function fire(origin: string, c: ReturnType<typeof chatCall>): void {
  const req = request(origin + c.url, { method: c.method, headers: c.headers, agent: false });
  req.on('error', () => {});
  req.on('response', (res) => res.on('error', () => {}).resume());
  req.end(c.body);
}

async function waitFor(check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('simulator shutdown', () => {
  it('ends every one of 500 attempts in flight as "shutdown" and hands each row to the sinks', async () => {
    served = await serve(YAML);
    const sunk: LedgerRow[] = [];
    served.sim.ledger.addSink((row) => sunk.push(row));
    for (let i = 0; i < 500; i++)
      fire(served.origin, chatCall(i % 3 === 0 ? 'deepseek' : 'openai', { stream: i % 2 === 0 }));
    await waitFor(() => served!.sim.ledger.size === 500);
    expect(served.sim.ledger.inFlight).toBe(500);
    await served.close();
    expect(served.sim.ledger.inFlight).toBe(0);
    expect(sunk).toHaveLength(500);
    const rows = [...served.sim.ledger.rowsIterator()];
    expect(new Set(rows.map((r) => r.end))).toEqual(new Set(['shutdown']));
    expect(rows.every((r) => r.endAt !== null)).toBe(true);
    served = undefined;
  });
});
