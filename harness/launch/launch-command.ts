import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { HarnessError } from '../errors.js';
import type { LaunchContext, RouterLaunch } from './launcher.js';
import { ROUTER_PORT_VAR } from './provider-env.js';
import { redactCommand, redactSecrets, secretValues } from './redact-secrets.js';
import { WATCHDOG } from './watchdog.js';

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
 * Spawns a router with `sh -c` (in `baseEnv`, which only `bin/` fills from the process), telling
 * it the simulated providers through `THROTTLELAB_*` variables and where to listen through
 * `THROTTLELAB_ROUTER_PORT` (and `PORT`), then polls `readyPath` until it answers, or until
 * `ctx.signal` aborts (Ctrl-C while it starts). The router runs under a watchdog (see
 * `watchdog.ts`): stopping sends its process group SIGTERM, then SIGKILL, and so does the death
 * of the harness, however it dies.
 */
export async function launchCommand(
  ctx: LaunchContext,
  spec: {
    command: string;
    cwd?: string;
    env: Record<string, string>;
    readyPath: string;
    /** Where the router serves its OpenAI-compatible API; `/v1` unless given. */
    basePath?: string;
    startTimeout: number;
    /** Also write everything the router prints to this file. */
    logFile?: string;
  },
  baseEnv: Readonly<Record<string, string | undefined>>,
): Promise<RouterLaunch> {
  const port = await freePort();
  // What a report or a terminal may show of the command and its output: no key or token in it.
  const secrets = secretValues({ ...baseEnv, ...ctx.env, ...spec.env });
  const shown = (text: string) => redactSecrets(text, secrets);
  const command = redactCommand(spec.command, secrets);
  const graceMs = 5000;
  const child = spawn(process.execPath, ['-e', WATCHDOG, spec.command, String(graceMs)], {
    cwd: spec.cwd,
    env: {
      ...baseEnv,
      ...ctx.env,
      ...spec.env,
      [ROUTER_PORT_VAR]: String(port),
      PORT: String(port),
    },
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    // Out of the harness's process group, so that a kill of the whole group leaves the watchdog to clean up.
    detached: true,
  });
  let tail = '';
  const log = spec.logFile !== undefined ? createWriteStream(spec.logFile) : undefined;
  log?.on('error', () => {});
  child.once('close', () => log?.end());
  const keep = (d: Buffer) => {
    tail = (tail + d.toString()).slice(-4000);
    // The log lands in the report folder: the run's keys are redacted (one chunk at a time).
    log?.write(shown(d.toString()));
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  child.stdin!.on('error', () => {});
  let routerPid: number | undefined;
  (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => (routerPid ??= Number.parseInt(String(d), 10)));
  let exited: number | null | undefined;
  const gone = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exited = code;
      resolve();
    }),
  );
  const stop = async () => {
    if (exited !== undefined) return;
    child.stdin!.end();
    // The watchdog gives the router `graceMs`, then kills its group; this is the bound on that.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([gone, new Promise<void>((r) => (timer = setTimeout(r, graceMs + 2000)))]);
    clearTimeout(timer);
    if (exited === undefined) {
      kill(routerPid);
      child.kill('SIGKILL');
      await gone;
    }
  };
  const origin = `http://127.0.0.1:${port}`;
  const giveUpAt = Date.now() + spec.startTimeout;
  for (;;) {
    if (ctx.signal?.aborted) {
      await stop();
      throw new HarnessError('HARNESS_INTERRUPTED', 'Interrupted while the router was starting; nothing was run.');
    }
    if (exited !== undefined)
      throw new HarnessError(
        'HARNESS_ROUTER_START_FAILED',
        `Failed to start the router: \`${command.shown}\` exited with code ${exited} before answering.`,
        { details: { output: shown(tail.trimEnd()) } },
      );
    try {
      const signal = ctx.signal ? AbortSignal.any([ctx.signal, AbortSignal.timeout(1000)]) : AbortSignal.timeout(1000);
      const res = await fetch(origin + spec.readyPath, { signal });
      await res.arrayBuffer();
      if (res.status < 500) break;
    } catch {
      // not up yet
    }
    if (Date.now() > giveUpAt) {
      await stop();
      throw new HarnessError(
        'HARNESS_ROUTER_START_FAILED',
        `Failed to start the router: nothing answered ${origin}${spec.readyPath} within ${spec.startTimeout} ms. Check that it listens on $THROTTLELAB_ROUTER_PORT.`,
        { details: { output: shown(tail.trimEnd()) } },
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl: `${origin}${(spec.basePath ?? '/v1').replace(/\/+$/, '')}`,
    description: `command: ${command.shown}`,
    ...(command.redacted ? { redacted: true } : {}),
    ...(spec.logFile !== undefined ? { logs: [spec.logFile] } : {}),
    pids: () => (routerPid !== undefined && routerPid > 0 ? [routerPid] : []),
    stop,
  };
}

function kill(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (pid === undefined || !(pid > 0)) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}
