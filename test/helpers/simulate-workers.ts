import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { replicaCli } from './fleet.js';

/** A `throttlelab simulate` process the test started, and what it printed. */
export interface SimulateProcess {
  port: number;
  /** The process id of the command (the primary, with --workers). */
  pid: number;
  /** Stops it with SIGINT and resolves with its exit code and everything it printed. */
  stop(): Promise<{ code: number | null; out: string }>;
}

/** Starts `throttlelab simulate <file> ...args` (no file: `''`, for --join) and waits (up to `timeoutMs`) until it serves. */
export async function startSimulate(file: string, args: string[], timeoutMs = 120_000): Promise<SimulateProcess> {
  const cli = replicaCli();
  const child = spawn(
    cli.argv[0]!,
    [...cli.argv.slice(1), 'simulate', ...(file ? [file] : []), '--port', '0', ...args],
    {
      cwd: cli.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`simulate did not start in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const look = () => {
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)[\s\S]*Ctrl-C/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout.off('data', look);
      resolve(Number(m[1]));
    };
    child.stdout.on('data', look);
    void exited.then(() => reject(new Error(`simulate exited before serving:\n${out}`)));
  });
  return {
    port,
    pid: child.pid!,
    async stop() {
      child.kill('SIGINT');
      const code = await exited;
      return { code, out };
    },
  };
}

/**
 * Posts one chat completion with `key` on a connection of its own (no keep-alive), so that the
 * workers' shared port hands successive requests to different workers; resolves with the status.
 */
export function postChat(port: number, path: string, key: string, prompt: string): Promise<number> {
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }] });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent: false,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        timeout: 60_000,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/** `n` chat completions on key `sk-sim-a`, ten at a time (`postChat`: each on a connection of its own); their statuses in order. */
export async function chatBurst(port: number, n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i += 10)
    statuses.push(
      ...(await Promise.all(
        Array.from({ length: 10 }, (_, j) => postChat(port, '/openai/v1/chat/completions', 'sk-sim-a', `hi ${i + j}`)),
      )),
    );
  return statuses;
}

/** A scenario (`name`, `seed`) of one OpenAI key limited to `limit` requests a minute, sliding: what the group tests share. */
export function oneKeyScenario(name: string, seed: number, limit = 40): string {
  return `
version: 1
name: ${name}
seed: ${seed}
providers:
  - id: openai
    vendor: openai
    models: [gpt-4o-mini]
    keys: [{ id: a, value: sk-sim-a }]
    quotas: [{ metric: requests, limit: ${limit}, per: 1m, algorithm: sliding-window, scope: key }]
`;
}

/**
 * Calls the control API (`method path`, a JSON body if given) on a connection of its own, so that
 * successive calls reach different workers; resolves with the status and the parsed body.
 */
export function callControl(
  port: number,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: `/_throttlelab${path}`,
        method,
        agent: false,
        headers: text === undefined ? {} : { 'content-type': 'application/json' },
        timeout: 30_000,
      },
      (res) => {
        let got = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (got += d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: got ? (JSON.parse(got) as unknown) : undefined }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('control call timed out')));
    req.on('error', reject);
    req.end(text);
  });
}
