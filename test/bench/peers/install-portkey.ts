// The bench's scratch install of Portkey's gateway: the harness's installer (pinned stream
// dependencies, a loopback-only preload), reused when it is already there.
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installPortkey as install, PORTKEY_VERSION } from '../../../harness/peers/install-portkey.js';

export { PORTKEY_VERSION };

/** The scratch install's entry point, installing it first if need be. */
export async function installPortkey(dir = join(tmpdir(), 'throttlelab-peers', `portkey-${PORTKEY_VERSION}`)) {
  const entry = join(dir, 'node_modules/@portkey-ai/gateway/build/start-server.js');
  const preload = join(dir, 'bind-loopback.mjs');
  if (!existsSync(entry) || !existsSync(preload)) await install(dir);
  return {
    entry,
    /** `node` arguments that start it on `port` at 127.0.0.1, without its UI. */
    argv: (port: number) => ['--import', preload, entry, `--port=${port}`, '--headless'],
  };
}
