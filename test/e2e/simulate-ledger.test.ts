import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.js';
import { captureIo } from '../helpers/cli.js';
import { chatCall } from '../helpers/scenario.js';

// `simulate --ledger-out` writes every attempt, those still in flight when it stops included, and
// a write error (a full disk) neither crashes it nor passes unnoticed.
//
// Each step polls for what it needs, with deadlines far from what a busy machine takes. What took
// the time was starting: `simulate` in a process of its own imports the tokenizer, the simulator
// and its command (5 s at a load of 10), and in process its first run imports and compiles them.
// All three run in process, that import paid once, before them.

const SCENARIO = 'test/fixtures/signals/hanging-providers.yaml';
const DEADLINE_MS = 60_000;
const TEST_TIMEOUT_MS = 2 * DEADLINE_MS;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'throttlelab-ledger-'));
  await import('../../bin/commands/simulate.js');
}, TEST_TIMEOUT_MS);

function fire(origin: string, c: ReturnType<typeof chatCall>): void {
  const req = request(origin + c.url, { method: c.method, headers: c.headers, agent: false });
  req.on('error', () => {});
  req.on('response', (res) => res.on('error', () => {}).resume());
  req.end(c.body);
}

async function attempts(origin: string): Promise<number> {
  return ((await (await fetch(`${origin}/_throttlelab/health`)).json()) as { attempts: number }).attempts;
}

async function until(check: () => Promise<boolean> | boolean, ms = DEADLINE_MS): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const key = (vendor: string) => `sk-sim-${vendor}-sig`;

describe('simulate --ledger-out', () => {
  it(
    'writes all 300 attempts still in flight when Ctrl-C stops it, and exits 0',
    async () => {
      const file = join(dir, 'attempts.jsonl');
      // As bin/throttlelab.ts hands the CLI a Ctrl-C (a process's own signals: test/e2e/signals.test.ts).
      const stop = new AbortController();
      const io = captureIo({ stop: stop.signal });
      const running = runCli(['simulate', SCENARIO, '--ledger-out', file], io);
      await until(() => io.lines.some((l) => l.startsWith('listening on')));
      const origin = /listening on (http:\/\/\S+)/.exec(io.lines.find((l) => l.startsWith('listening on'))!)![1]!;
      for (let i = 0; i < 300; i++) {
        const vendor = i % 3 === 0 ? 'deepseek' : 'openai';
        fire(origin, chatCall(vendor, { key: key(vendor), stream: i % 2 === 0 }));
      }
      await until(async () => (await attempts(origin)) === 300);
      stop.abort('SIGINT');
      expect(await running).toBe(0);
      const rows = (await readFile(file, 'utf8'))
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { seq: number; end: string });
      expect(rows).toHaveLength(300);
      expect(new Set(rows.map((r) => r.seq)).size).toBe(300);
      expect(new Set(rows.map((r) => r.end))).toEqual(new Set(['shutdown']));
      expect(io.lines).toContain(`ledger: 300 attempts written to ${file}`);
    },
    TEST_TIMEOUT_MS,
  );

  it.skipIf(!existsSync('/dev/full'))(
    'keeps serving through a full disk, says so once, and exits 2 naming the incomplete file',
    async () => {
      const stop = new AbortController();
      const io = captureIo({ stop: stop.signal });
      const running = runCli(['simulate', 'scenarios/quickstart.yaml', '--ledger-out', '/dev/full'], io);
      await until(() => io.lines.some((l) => l.startsWith('listening on')));
      const origin = /listening on (http:\/\/\S+)/.exec(io.lines.find((l) => l.startsWith('listening on'))!)![1]!;
      const models = await fetch(`${origin}/openai/v1/models`, {
        headers: { authorization: 'Bearer sk-sim-openai-main-0001' },
      });
      expect(models.status).toBe(200);
      await until(() => io.errors.some((l) => l.includes('ENOSPC')));
      // Still serving after the write failed.
      const again = await fetch(`${origin}/openai/v1/models`, {
        headers: { authorization: 'Bearer sk-sim-openai-main-0001' },
      });
      expect(again.status).toBe(200);
      stop.abort();
      expect(await running).toBe(2);
      expect(io.errors.filter((l) => l.includes('ENOSPC'))).toEqual([
        'simulate: writing /dev/full failed (ENOSPC); later attempts are not written. Still serving.',
        'throttlelab: CLI_OUTPUT_UNWRITABLE: --ledger-out /dev/full: writing failed (ENOSPC); the file is incomplete: 2 of 2 attempts are not in it.',
      ]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'writes every attempt when a client of the event stream leaves mid-run',
    async () => {
      const file = join(dir, 'events-left.jsonl');
      const stop = new AbortController();
      const io = captureIo({ stop: stop.signal });
      const running = runCli(['simulate', 'scenarios/quickstart.yaml', '--ledger-out', file], io);
      await until(() => io.lines.some((l) => l.startsWith('listening on')));
      const origin = /listening on (http:\/\/\S+)/.exec(io.lines.find((l) => l.startsWith('listening on'))!)![1]!;
      const models = async (n: number) => {
        for (let i = 0; i < n; i++)
          await fetch(`${origin}/openai/v1/models`, { headers: { authorization: 'Bearer sk-sim-openai-main-0001' } });
      };
      const watcher = new AbortController();
      const events = await fetch(`${origin}/_throttlelab/events`, { signal: watcher.signal });
      await events.body!.getReader().read();
      await models(10);
      // The event client leaves (the dashboard's tab closed): its request and its response both close.
      watcher.abort();
      await new Promise((r) => setTimeout(r, 100));
      await models(20);
      stop.abort();
      expect(await running).toBe(0);
      const rows = (await readFile(file, 'utf8')).trimEnd().split('\n');
      expect(rows).toHaveLength(30);
      expect(io.lines).toContain(`ledger: 30 attempts written to ${file}`);
    },
    TEST_TIMEOUT_MS,
  );
});
