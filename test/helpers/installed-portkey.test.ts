import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CacheClock } from './cached-dir.js';
import { installedPortkey } from './installed-portkey.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function cacheRoot(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'throttlelab-portkey-test-'));
  dirs.push(d);
  return d;
}

/** An installer that writes the preload the command names and counts its calls. */
function fakeInstall() {
  const install = Object.assign(
    async (dir: string) => {
      install.calls++;
      await writeFile(join(dir, 'bind-loopback.mjs'), '');
    },
    { calls: 0 },
  );
  return install;
}

const at = (iso: string): CacheClock => ({ now: () => Date.parse(iso), sleep: async () => {} });

describe('installedPortkey', () => {
  it('installs once a day and version, naming the files where the cache keeps them', async () => {
    const root = await cacheRoot();
    const install = fakeInstall();
    const morning = await installedPortkey({ cacheRoot: root, install, clock: at('2026-12-03T06:00:00Z') });
    const evening = await installedPortkey({ cacheRoot: root, install, clock: at('2026-12-03T22:00:00Z') });
    expect(install.calls).toBe(1);
    expect(evening).toEqual(morning);
    expect(morning.dir).toMatch(/throttlelab-portkey-test-\w+\/2026-12-03-1\.15\.2-[0-9a-f]{8}$/);
    const preload = join(morning.dir, 'bind-loopback.mjs');
    expect(existsSync(preload)).toBe(true);
    expect(morning.command).toBe(
      `node --import ${preload} ${join(morning.dir, 'node_modules/@portkey-ai/gateway/build/start-server.js')} --port=$THROTTLELAB_ROUTER_PORT --headless`,
    );
  });

  it('installs again on the next UTC day and for another version', async () => {
    const root = await cacheRoot();
    const install = fakeInstall();
    const today = await installedPortkey({ cacheRoot: root, install, clock: at('2026-12-03T06:00:00Z') });
    const tomorrow = await installedPortkey({ cacheRoot: root, install, clock: at('2026-12-04T06:00:00Z') });
    const other = await installedPortkey({
      cacheRoot: root,
      install,
      version: '1.16.0',
      clock: at('2026-12-04T06:00:00Z'),
    });
    expect(install.calls).toBe(3);
    expect(new Set([today.dir, tomorrow.dir, other.dir]).size).toBe(3);
    expect(other.version).toBe('1.16.0');
  });

  it('installs again given the last install failed midway', async () => {
    const root = await cacheRoot();
    const clock = at('2026-12-03T06:00:00Z');
    const failing = async (dir: string) => {
      await writeFile(join(dir, 'bind-loopback.mjs'), '');
      throw new Error('ETIMEDOUT registry.npmjs.org');
    };
    await expect(installedPortkey({ cacheRoot: root, install: failing, clock })).rejects.toThrow('ETIMEDOUT');
    const install = fakeInstall();
    await installedPortkey({ cacheRoot: root, install, clock });
    expect(install.calls).toBe(1);
  });
});
