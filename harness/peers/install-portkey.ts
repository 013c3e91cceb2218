import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The Portkey gateway release the suite judges. */
export const PORTKEY_VERSION = '1.15.2';

/**
 * What Portkey's streams go through, pinned in the scratch folder (npm `overrides`): the gateway
 * writes every answer, streamed or not, through `hono` and `@hono/node-server`, which it takes
 * with caret ranges. Left floating, a release of either between two runs would change the
 * gateway under test (how a streamed body is framed and flushed) and three identical runs could
 * judge different code. These are the versions npm resolved for 1.15.2 on 2026-11-30.
 */
export const PORTKEY_PINS: Record<string, string> = { hono: '4.13.19', '@hono/node-server': '1.19.19' };

// Portkey's gateway calls server.listen(port) with no host, i.e. on every interface: the
// preload binds every listen without a host to 127.0.0.1, so the suite never exposes it.
const LOOPBACK_PRELOAD = `import net from 'node:net';
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || typeof args[0] === 'string') {
    const cb = args.find((a) => typeof a === 'function');
    return listen.call(this, { port: Number(args[0]), host: '127.0.0.1' }, cb);
  }
  if (args[0] && typeof args[0] === 'object' && !args[0].host && !args[0].path) args[0] = { ...args[0], host: '127.0.0.1' };
  return listen.apply(this, args);
};
`;

/** An installed gateway: the command that starts it on `$THROTTLELAB_ROUTER_PORT`, loopback only. */
export interface PortkeyInstall {
  dir: string;
  version: string;
  /** A `--router-cmd` for throttlelab (single-quoted by the caller's shell; the variable is expanded by the harness's `sh -c`). */
  command: string;
}

/**
 * Installs `@portkey-ai/gateway` into `dir` (a scratch folder, never this package's dependencies)
 * with `npm install`, its stream dependencies pinned, and writes the loopback preload. Throws
 * the npm error if the registry cannot be reached.
 */
export async function installPortkey(dir: string, version = PORTKEY_VERSION): Promise<PortkeyInstall> {
  await mkdir(dir, { recursive: true });
  const manifest = { name: 'throttlelab-peer-portkey', private: true, overrides: PORTKEY_PINS };
  await writeFile(join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--save-exact', `@portkey-ai/gateway@${version}`],
    { cwd: dir, timeout: 600_000, maxBuffer: 16 << 20 },
  );
  const preload = join(dir, 'bind-loopback.mjs');
  await writeFile(preload, LOOPBACK_PRELOAD);
  const entry = join(dir, 'node_modules/@portkey-ai/gateway/build/start-server.js');
  return {
    dir,
    version,
    command: `node --import ${preload} ${entry} --port=$THROTTLELAB_ROUTER_PORT --headless`,
  };
}
