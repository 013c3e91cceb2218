import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LOOPBACK_PRELOAD } from './loopback-preload.js';

const run = promisify(execFile);

/** The Portkey gateway release the suite judges. */
export const PORTKEY_VERSION = '1.15.2';

/**
 * What Portkey's streams go through, pinned in the scratch folder (npm `overrides`): the gateway
 * writes every answer, streamed or not, through `hono` and `@hono/node-server`, which it takes
 * with caret ranges (`^4.9.7`, `^1.3.3`). Left floating, a release of either between two runs
 * would change the gateway under test, and three identical runs could judge different code.
 *
 * `@hono/node-server` is pinned to 1.14.1, the last release under which Portkey 1.15.2 can serve a
 * stream from an OpenAI-style or Anthropic target on Node. Its stream handler returns
 * `new Response(transformed, upstream)`, `upstream` being the fetch (undici) Response, whose
 * headers are immutable; then `updateHeaders` appends `x-portkey-*` to that answer's headers. The
 * server replaces the global `Response` with its own lightweight class: up to 1.14.1 that class
 * copies the init's headers into a plain object and hands out a fresh, mutable `Headers`; from
 * 1.14.2 on (1.19.17 was current when 1.15.2 was published, 1.19.19 on 2026-11-30) it hands out
 * the upstream `Headers` object itself, the append throws `TypeError: immutable` and Portkey
 * answers 500 "Something went wrong" (Gemini is spared: its transformer builds new headers).
 * Checked on Node 20.20 with a one-stream upstream: 1.14.1 serves it, 1.14.2, 1.19.17 and 1.19.19
 * answer 500. 1.14.1 also carries the `await` Portkey's own repository patches into 1.13.5.
 * `hono` does not take part in this and stays at what npm resolved for 1.15.2 on 2026-11-30.
 */
export const PORTKEY_PINS: Record<string, string> = { hono: '4.13.19', '@hono/node-server': '1.14.1' };

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
  // Portkey's gateway calls server.listen(port) with no host, i.e. on every interface.
  await writeFile(join(dir, PORTKEY_PRELOAD), LOOPBACK_PRELOAD);
  return portkeyInstallAt(dir, version);
}

/** The preload `installPortkey` writes beside the gateway, relative to its folder. */
export const PORTKEY_PRELOAD = 'bind-loopback.mjs';

/** The gateway's entry point, relative to the folder `installPortkey` installed it into. */
export const PORTKEY_ENTRY = 'node_modules/@portkey-ai/gateway/build/start-server.js';

/** The install `installPortkey` made in `dir`, wherever that folder has moved since (a cache's rename). */
export function portkeyInstallAt(dir: string, version = PORTKEY_VERSION): PortkeyInstall {
  const preload = join(dir, PORTKEY_PRELOAD);
  const entry = join(dir, PORTKEY_ENTRY);
  return {
    dir,
    version,
    command: `node --import ${preload} ${entry} --port=$THROTTLELAB_ROUTER_PORT --headless`,
  };
}
