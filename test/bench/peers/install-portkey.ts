// Installs Portkey's gateway into a scratch folder (never a dependency of this project) and says
// how to start it bound to 127.0.0.1. Reused when already there.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const PORTKEY_VERSION = '1.15.2';

/** The scratch install's entry point, installing it first if need be. */
export async function installPortkey(dir = join(tmpdir(), 'throttlelab-peers', `portkey-${PORTKEY_VERSION}`)) {
  const entry = join(dir, 'node_modules/@portkey-ai/gateway/build/start-server.js');
  if (!existsSync(entry)) {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'package.json'), '{"name":"portkey-scratch","private":true}\n');
    await promisify(execFile)(
      'npm',
      ['install', '--no-audit', '--no-fund', '--ignore-scripts', `@portkey-ai/gateway@${PORTKEY_VERSION}`],
      { cwd: dir, timeout: 300_000 },
    );
  }
  return {
    entry,
    /** `node` arguments that start it on `port` at 127.0.0.1, without its UI. */
    argv: (port: number) => [
      '--import',
      join(import.meta.dirname, 'loopback-only.mjs'),
      entry,
      `--port=${port}`,
      '--headless',
    ],
  };
}
