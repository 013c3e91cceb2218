import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { HarnessError } from '../errors.js';
import type { LaunchContext, RouterLaunch } from './launcher.js';
import { ROUTER_PORT_VAR } from './provider-env.js';

/** A free loopback port, picked by the OS. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Spawns a router with `sh -c` (in `baseEnv`, which only `bin/` fills from the process), telling it the simulated providers through `THROTTLELAB_*`
 * variables and where to listen through `THROTTLELAB_ROUTER_PORT` (and `PORT`), then polls
 * `readyPath` until it answers. Stopping sends SIGTERM to its process group, then SIGKILL.
 */
export async function launchCommand(
  ctx: LaunchContext,
  spec: {
    command: string;
    cwd?: string;
    env: Record<string, string>;
    readyPath: string;
    startTimeout: number;
    /** Also write everything the router prints to this file. */
    logFile?: string;
  },
  baseEnv: Readonly<Record<string, string | undefined>>,
): Promise<RouterLaunch> {
  const port = await freePort();
  const child = spawn('sh', ['-c', spec.command], {
    cwd: spec.cwd,
    env: { ...baseEnv, ...ctx.env, ...spec.env, [ROUTER_PORT_VAR]: String(port), PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let tail = '';
  const log = spec.logFile !== undefined ? createWriteStream(spec.logFile) : undefined;
  log?.on('error', () => {});
  child.once('close', () => log?.end());
  const keep = (d: Buffer) => {
    tail = (tail + d.toString()).slice(-4000);
    log?.write(d);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  const origin = `http://127.0.0.1:${port}`;
  const giveUpAt = Date.now() + spec.startTimeout;
  for (;;) {
    if (exited !== undefined)
      throw new HarnessError(
        'HARNESS_ROUTER_START_FAILED',
        `Failed to start the router: \`${spec.command}\` exited with code ${exited} before answering.`,
        { details: { output: tail.trimEnd() } },
      );
    try {
      const res = await fetch(origin + spec.readyPath, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.status < 500) break;
    } catch {
      // not up yet
    }
    if (Date.now() > giveUpAt) {
      kill(child.pid);
      throw new HarnessError(
        'HARNESS_ROUTER_START_FAILED',
        `Failed to start the router: nothing answered ${origin}${spec.readyPath} within ${spec.startTimeout} ms. Check that it listens on $THROTTLELAB_ROUTER_PORT.`,
        { details: { output: tail.trimEnd() } },
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl: `${origin}/v1`,
    description: `command: ${spec.command}`,
    ...(spec.logFile !== undefined ? { logs: [spec.logFile] } : {}),
    async stop() {
      if (exited !== undefined) return;
      kill(child.pid, 'SIGTERM');
      const killAt = Date.now() + 5000;
      while (exited === undefined && Date.now() < killAt) await new Promise((r) => setTimeout(r, 50));
      if (exited === undefined) kill(child.pid, 'SIGKILL');
    },
  };
}

function kill(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}
