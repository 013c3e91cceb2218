// The bench's install of Portkey's gateway: the harness's installer (pinned stream dependencies, a
// loopback-only preload), installed once a day into $TMPDIR/throttlelab-portkey and shared with
// test/integration/peers-portkey.test.ts.
import { join } from 'node:path';
import { PORTKEY_ENTRY, PORTKEY_PRELOAD, PORTKEY_VERSION } from '../../../harness/peers/install-portkey.js';
import { installedPortkey } from '../../helpers/installed-portkey.js';

export { PORTKEY_VERSION };

/** The install's entry point, installing it first if today's is not there yet. */
export async function installPortkey() {
  const { dir } = await installedPortkey();
  return {
    entry: join(dir, PORTKEY_ENTRY),
    /** `node` arguments that start it on `port` at 127.0.0.1, without its UI. */
    argv: (port: number) => [
      '--import',
      join(dir, PORTKEY_PRELOAD),
      join(dir, PORTKEY_ENTRY),
      `--port=${port}`,
      '--headless',
    ],
  };
}
