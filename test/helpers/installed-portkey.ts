import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOOPBACK_PRELOAD } from '../../harness/peers/loopback-preload.js';
import {
  installPortkey,
  PORTKEY_PINS,
  PORTKEY_VERSION,
  portkeyInstallAt,
  type PortkeyInstall,
} from '../../harness/peers/install-portkey.js';
import { cachedDir, type CacheClock } from './cached-dir.js';

export interface InstalledPortkeyOptions {
  version?: string;
  /** Where installs are kept; `$TMPDIR/throttlelab-portkey` by default. */
  cacheRoot?: string;
  /** Installs the gateway into an empty folder; the harness's installer by default. */
  install?: (dir: string, version: string) => Promise<unknown>;
  clock?: CacheClock;
}

/**
 * Portkey's gateway installed once per UTC day (npm resolves its floating dependencies afresh each
 * day), version and installer settings (the pins and the loopback preload: a change to either
 * installs again). Concurrent callers wait for one install rather than making two.
 */
export async function installedPortkey(options: InstalledPortkeyOptions = {}): Promise<PortkeyInstall> {
  const version = options.version ?? PORTKEY_VERSION;
  const install = options.install ?? installPortkey;
  const day = new Date(options.clock?.now() ?? Date.now()).toISOString().slice(0, 10);
  const settings = createHash('sha256').update(JSON.stringify(PORTKEY_PINS)).update(LOOPBACK_PRELOAD).digest('hex');
  const dir = await cachedDir({
    root: options.cacheRoot ?? join(tmpdir(), 'throttlelab-portkey'),
    key: `${day}-${version}-${settings.slice(0, 8)}`,
    clock: options.clock,
    // An install of Portkey's gateway takes a minute or two on a quiet machine.
    staleLockMs: 15 * 60_000,
    fill: async (scratch) => {
      await install(scratch, version);
    },
  });
  return portkeyInstallAt(dir, version);
}
