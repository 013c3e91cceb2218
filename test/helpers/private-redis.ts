import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../harness/launch/launch-command.js';
import { eventually } from './eventually.js';
import { Redis } from 'ioredis';

/**
 * A redis-server of a test's own, on a free loopback port, without persistence: for tests that
 * pause it (SIGSTOP), which the team's shared Redis must never be. `close` resumes and kills it.
 */
export async function startPrivateRedis(): Promise<{ url: string; pause(): void; close(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `redis://127.0.0.1:${port}`;
  await eventually(async () => {
    const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    r.on('error', () => {});
    try {
      await r.connect();
      await r.ping();
    } finally {
      r.disconnect();
    }
  }, 10_000);
  const signal = (s: NodeJS.Signals) => {
    try {
      child.kill(s);
    } catch {
      // gone already
    }
  };
  return {
    url,
    pause: () => signal('SIGSTOP'),
    async close() {
      signal('SIGCONT');
      signal('SIGKILL');
      await exited;
    },
  };
}
