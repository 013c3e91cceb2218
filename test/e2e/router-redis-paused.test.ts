import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { startPrivateRedis } from '../helpers/private-redis.js';

// A router sharing its state through a Redis that is paused (SIGSTOP: its connections stay open,
// nothing answers) must still stop on SIGTERM: it once stayed alive 41 s, waiting on Redis. The
// store's own deadline is tested in test/integration/redis-store-paused.test.ts; this is the
// process as an operator runs it. Deadlines are generous for a busy machine; the bound checked,
// 10 s, is far from the store's close deadline (1 s by default) and from the 41 s it used to take.

const STOP_BOUND_MS = 10_000;
const DEADLINE_MS = 60_000;
const ANSWER = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 0,
  model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
};

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

describe('a Redis-backed router', () => {
  it(
    'exits within 10 s of SIGTERM while its Redis is paused',
    async () => {
      const redis = await startPrivateRedis();
      cleanup.push(() => redis.close());
      const dir = await mkdtemp(join(tmpdir(), 'throttlelab-paused-'));
      cleanup.push(() => rm(dir, { recursive: true, force: true }));
      // An upstream that answers at once: the router's requests complete, and it has state to share.
      const upstream = createServer((req, res) => {
        req.resume();
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(ANSWER));
      });
      upstream.listen(0, '127.0.0.1');
      await once(upstream, 'listening');
      cleanup.push(() => new Promise((r) => upstream.close(() => r())));
      upstream.unref();
      const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
      const config = join(dir, 'router.yaml');
      await writeFile(
        config,
        `version: 1
providers:
  - { id: openai, vendor: openai, baseUrl: ${upstreamUrl}, keys: [{ id: main, env: KEY }], models: [gpt-4o-mini] }
store: { kind: redis, env: FLEET_REDIS, keyPrefix: "paused-e2e:" }
`,
      );
      const child = spawn(process.execPath, ['dist/bin/throttlelab.js', 'router', '--config', config, '--port', '0'], {
        env: { ...process.env, KEY: 'sk-x', FLEET_REDIS: redis.url },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
        child.once('exit', (code) => resolve({ code, at: performance.now() })),
      );
      cleanup.push(async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await exited;
      });
      await eventually(() => expect(out).toMatch(/listening on (http:\/\/\S+)/), DEADLINE_MS);
      // Joined its fleet: at once, or (a busy machine can take longer than the router waits to join
      // at start) later, once Redis answered.
      await eventually(() => expect(out).toMatch(/sharing state with the fleet|rejoined the fleet/), DEADLINE_MS);
      const origin = /listening on (http:\/\/\S+)/.exec(out)![1]!;
      const chat = () =>
        fetch(`${origin}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
        });
      for (let i = 0; i < 2; i++) expect((await chat()).status).toBe(200);
      redis.pause();
      // One more while Redis is paused, left in flight.
      chat().catch(() => {});
      const termAt = performance.now();
      child.kill('SIGTERM');
      const outcome = await Promise.race([
        exited,
        new Promise<'alive'>((r) => setTimeout(() => r('alive'), STOP_BOUND_MS)),
      ]);
      expect(outcome, out).not.toBe('alive');
      expect(outcome).toMatchObject({ code: 0 });
      expect((outcome as { at: number }).at - termAt).toBeLessThan(STOP_BOUND_MS);
      expect(out).toContain('router stopped.');
    },
    2 * DEADLINE_MS,
  );
});
