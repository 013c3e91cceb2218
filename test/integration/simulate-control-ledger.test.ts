import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { oneKeyScenario, postChat, startSimulate } from '../helpers/simulate-workers.js';

// The control API of `simulate --workers 2` answers for the whole group whichever worker takes
// the call: /ledger and /events carry every worker's attempts (through the group's Redis stream).

const CHAT = '/openai/v1/chat/completions';
const SCENARIO = oneKeyScenario('group-ledger', 5, 30);
const SENT = 60;

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tl-group-ledger-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** GETs a control path as JSON on a connection of its own, so that successive calls reach different workers. */
function getJson(port: number, path: string): Promise<{ total: number; rows: Array<{ status: number }> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, timeout: 30_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve(JSON.parse(body) as { total: number; rows: Array<{ status: number }> }));
    });
    req.on('timeout', () => req.destroy(new Error('control call timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** Follows /events on a connection of its own; counts the attempts its ticks carry. */
function followEvents(port: number) {
  let attempts = 0;
  let buffer = '';
  let hello: () => void = () => {};
  const ready = new Promise<void>((resolve) => (hello = resolve));
  const req = request({ host: '127.0.0.1', port, path: '/_throttlelab/events', agent: false }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (d: string) => {
      buffer += d;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const message = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (message.startsWith('event: hello')) hello();
        const data = /^event: tick\ndata: (.*)$/s.exec(message)?.[1];
        if (data) attempts += (JSON.parse(data) as { attempts: unknown[] }).attempts.length;
      }
    });
  });
  req.on('error', () => {});
  req.end();
  return { ready, attempts: () => attempts, close: () => req.destroy() };
}

describe('simulate --workers 2: control API', () => {
  it("answers /ledger and /events with every worker's attempts, whichever worker takes the call", async () => {
    const file = join(dir, 'scenario.yaml');
    await writeFile(file, SCENARIO);
    const sim = await startSimulate(file, ['--workers', '2']);
    // Two streams opened one after the other: the workers' shared port hands them to both workers.
    const streams = [followEvents(sim.port), followEvents(sim.port)];
    try {
      await Promise.all(streams.map((s) => s.ready));
      const statuses: number[] = [];
      for (let i = 0; i < SENT; i += 10)
        statuses.push(
          ...(await Promise.all(
            Array.from({ length: 10 }, (_, j) => postChat(sim.port, CHAT, 'sk-sim-a', `hi ${i + j}`)),
          )),
        );
      expect(statuses.filter((s) => s === 200)).toHaveLength(30);
      // Ten calls in a row, each on a new connection (both workers take some): every one sees all.
      await eventually(async () => {
        for (let i = 0; i < 10; i++) {
          const { total, rows } = await getJson(sim.port, '/_throttlelab/ledger?limit=1000');
          expect(total).toBe(SENT);
          expect(rows.filter((r) => r.status === 200)).toHaveLength(30);
        }
      }, 60_000);
      await eventually(() => expect(streams.map((s) => s.attempts())).toEqual([SENT, SENT]), 60_000);
    } finally {
      for (const s of streams) s.close();
      const { code, out } = await sim.stop();
      expect(code, out).toBe(0);
      // Both workers served: the calls above were answered by both.
      const perWorker = /per worker: (\d+), (\d+)\)/.exec(out);
      expect(Number(perWorker?.[1])).toBeGreaterThan(0);
      expect(Number(perWorker?.[2])).toBeGreaterThan(0);
    }
  }, 300_000);
});
