import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LOOPBACK_PRELOAD } from './loopback-preload.js';

const run = promisify(execFile);

/** The nullplatform llm-gateway release the suite judges (`@nullplatform/llm-gateway`, bin `llm-gateway`). */
export const LLM_GATEWAY_VERSION = '2.0.11';

/**
 * npm `overrides` for the scratch folder. `@nullplatform/llm-gateway@2.0.11` takes
 * `@nullplatform/llm-gateway-sdk@^2.0.0`, and the only SDK release on npm, 2.0.2, lists itself as a
 * dependency at `^1.0.0`, a range no published version satisfies: a plain `npm install` stops with
 * ETARGET (checked 2026-12-02). Overriding the SDK to 2.0.2 everywhere satisfies that self-reference
 * with the package itself and pins the SDK the gateway runs on.
 */
export const LLM_GATEWAY_PINS: Record<string, string> = { '@nullplatform/llm-gateway-sdk': '2.0.2' };

/** An installed llm-gateway: how to start it with a config file. */
export interface LlmGatewayInstall {
  dir: string;
  version: string;
  /** The command that starts it on the config in `configFile` (the port comes from the config, bound to loopback by a preload). */
  command: (configFile: string) => string;
}

/**
 * Installs `@nullplatform/llm-gateway` into `dir` (a scratch folder, never this package's
 * dependencies) with `npm install`, the SDK pinned, and writes the loopback preload. Throws the npm
 * error if the registry cannot be reached.
 */
export async function installLlmGateway(dir: string, version = LLM_GATEWAY_VERSION): Promise<LlmGatewayInstall> {
  await mkdir(dir, { recursive: true });
  const manifest = { name: 'throttlelab-peer-llm-gateway', private: true, overrides: LLM_GATEWAY_PINS };
  await writeFile(join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--save-exact', `@nullplatform/llm-gateway@${version}`],
    { cwd: dir, timeout: 600_000, maxBuffer: 16 << 20 },
  );
  // The gateway calls app.listen(port) with no host: its `server.host` setting is never used.
  const preload = join(dir, 'bind-loopback.mjs');
  await writeFile(preload, LOOPBACK_PRELOAD);
  const entry = join(dir, 'node_modules/@nullplatform/llm-gateway/dist/cli.js');
  return { dir, version, command: (configFile) => `node --import ${preload} ${entry} start --config ${configFile}` };
}
