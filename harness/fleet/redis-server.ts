import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Redis as RedisClient } from 'ioredis';
import { HarnessError } from '../errors.js';
import { freePort } from '../launch/launch-command.js';
import { WATCHDOG } from '../launch/watchdog.js';

/** A redis-server the harness owns for one run (or one test): it can stop, restart and pause it. */
export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** Whether it is running now. */
  readonly running: boolean;
  /**
   * Stops it. `keepData` saves its data first, so that `start` brings it back as a Redis with
   * persistence (or a failover to a replica) would; otherwise it comes back empty.
   */
  stop(options: { keepData: boolean }): Promise<void>;
  /** Starts it again on the same port (with its data if the last stop kept it). */
  start(): Promise<void>;
  /** Makes it answer no client for `ms` (CLIENT PAUSE … ALL): a slow Redis, with its data. */
  pause(ms: number): Promise<void>;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
}

/** Options of `startRedisServer`. */
export interface RedisServerOptions {
  /** The server binary (default `redis-server` on the PATH). */
  binary?: string;
  /** How long to wait for it to answer PING. */
  startTimeoutMs?: number;
}

// ioredis loads only when a fleet starts a Redis: merely loading it leaves string-heavy code
// (charCodeAt loops: token counting, hashing) some 2.5 times slower for the rest of the process
// (BENCHMARKS.md, branch h-hot-sim), and every simulated run imports the harness.
let RedisCtor: typeof RedisClient | undefined;
const redisClass = (): typeof RedisClient =>
  (RedisCtor ??= (createRequire(import.meta.url)('ioredis') as { Redis: typeof RedisClient }).Redis);

async function pingable(url: string, timeoutMs: number): Promise<boolean> {
  const giveUpAt = Date.now() + timeoutMs;
  while (Date.now() < giveUpAt) {
    const r = new (redisClass())(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    r.on('error', () => {});
    try {
      await r.connect();
      if ((await r.ping()) === 'PONG') return true;
    } catch {
      // not yet
    } finally {
      r.disconnect();
    }
    await new Promise((res) => setTimeout(res, 50));
  }
  return false;
}

/** One command on a short-lived connection. */
async function command(url: string, ...args: string[]): Promise<unknown> {
  const r = new (redisClass())(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => {});
  try {
    await r.connect();
    return await r.call(args[0]!, ...args.slice(1));
  } finally {
    r.disconnect();
  }
}

/**
 * Starts a redis-server on a free loopback port, in a folder of its own, without persistence of
 * its own (`--save "" --appendonly no`; data is saved only when a stop asks to keep it).
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const binary = options.binary ?? 'redis-server';
  const startTimeoutMs = options.startTimeoutMs ?? 5000;
  // Loaded before anything is spawned or made: should it fail, nothing is left behind.
  redisClass();
  const dir = await mkdtemp(join(tmpdir(), 'throttlelab-redis-'));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = '';

  const launch = async () => {
    output = '';
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--dbfilename',
      'dump.rdb',
      '--loglevel',
      'warning',
    ];
    // Under the router's watchdog (its own process group, stopped when the harness dies, SIGKILL
    // included), so that a killed harness leaves no redis-server behind. SIGTERM to the watchdog
    // stops redis-server (SIGKILL after 500 ms); `exec` keeps redis-server's exit code.
    const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;
    const c = spawn(process.execPath, ['-e', WATCHDOG, `exec ${[binary, ...args].map(quote).join(' ')}`, '500'], {
      stdio: ['pipe', 'pipe', 'pipe', 'ignore'],
      // Out of the harness's process group: a kill of the whole group leaves the watchdog to stop redis-server.
      detached: true,
    });
    c.stdin!.on('error', () => {});
    const keep = (d: Buffer) => {
      output = (output + d.toString()).slice(-2000);
    };
    c.stdout!.on('data', keep);
    c.stderr!.on('data', keep);
    let spawnError: Error | undefined;
    c.once('error', (e) => (spawnError = e));
    // The shell answers 127 for a command it cannot find.
    c.once('exit', (code) => {
      if (code === 127) spawnError ??= Object.assign(new Error(`${binary} not found`), { code: 'ENOENT' });
    });
    exited = new Promise((resolve) => c.once('exit', () => resolve()));
    child = c;
    const up = await pingable(url, startTimeoutMs);
    if (!up || spawnError) {
      c.kill('SIGTERM');
      const missing = (spawnError as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
      throw new HarnessError(
        'HARNESS_REDIS_UNAVAILABLE',
        missing
          ? `Failed to start Redis for the fleet: \`${binary}\` is not installed. Install Redis 7 (e.g. apt install redis-server, brew install redis).`
          : `Failed to start Redis for the fleet on port ${port}: it did not answer within ${startTimeoutMs} ms.`,
        { details: { output: output.trim() } },
      );
    }
  };

  const stop = async (keepData: boolean) => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    child = undefined;
    await command(url, 'SHUTDOWN', keepData ? 'SAVE' : 'NOSAVE').catch(() => {});
    const killed = setTimeout(() => c.kill('SIGTERM'), 3000);
    await exited;
    clearTimeout(killed);
    if (!keepData) await rm(join(dir, 'dump.rdb'), { force: true });
  };

  await launch();
  return {
    url,
    port,
    get running() {
      return child !== undefined && child.exitCode === null;
    },
    stop: ({ keepData }) => stop(keepData),
    async start() {
      if (child && child.exitCode === null) return;
      await launch();
    },
    async pause(ms) {
      await command(url, 'CLIENT', 'PAUSE', String(Math.max(1, Math.round(ms))), 'ALL');
    },
    async close() {
      await stop(false);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
