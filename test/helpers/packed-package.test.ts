import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CacheClock } from './cached-dir.js';
import { copyInstalledProject, packedPackage, type PackFn } from './packed-package.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** A checkout with something in each packed place, and a cache folder beside it. */
async function checkout() {
  const base = await mkdtemp(join(tmpdir(), 'throttlelab-packed-test-'));
  dirs.push(base);
  const root = join(base, 'repo');
  for (const d of ['dist/bin', 'scenarios', 'docs', 'router']) await mkdir(join(root, d), { recursive: true });
  await writeFile(join(root, 'package.json'), '{ "name": "throttlelab", "version": "0.1.0" }');
  await writeFile(join(root, 'package-lock.json'), '{}');
  await writeFile(join(root, 'dist/bin/throttlelab.js'), 'console.log(1);');
  await writeFile(join(root, 'scenarios/quickstart.yaml'), 'name: q');
  await writeFile(join(root, 'docs/ci.md'), '# CI');
  await writeFile(join(root, 'router/index.ts'), 'export {};');
  return { root, cacheRoot: join(base, 'cache') };
}

/** A pack that copies the built entry point into its "tarball" and counts its calls. */
function fakePack() {
  const pack: PackFn & { calls: number } = Object.assign(
    async (root: string, dir: string) => {
      pack.calls++;
      await writeFile(join(dir, 'throttlelab-0.1.0.tgz'), await readFile(join(root, 'dist/bin/throttlelab.js')));
      await mkdir(join(dir, 'project/node_modules/throttlelab'), { recursive: true });
      await writeFile(join(dir, 'project/node_modules/throttlelab/index.js'), 'export {};');
      await writeFile(join(dir, 'project/node_modules/.package-lock.json'), '{ "cached": true }');
      return { filename: 'throttlelab-0.1.0.tgz', files: ['package.json', 'dist/bin/throttlelab.js'] };
    },
    { calls: 0 },
  );
  return pack;
}

const at = (iso: string): CacheClock => ({ now: () => Date.parse(iso), sleep: async () => {} });

describe('packedPackage', () => {
  it('packs once for the same content on the same UTC day', async () => {
    const { root, cacheRoot } = await checkout();
    const pack = fakePack();
    const clock = at('2026-12-03T06:00:00Z');
    const first = await packedPackage({ root, cacheRoot, pack, clock });
    const second = await packedPackage({ root, cacheRoot, pack, clock });
    expect(pack.calls).toBe(1);
    expect(second).toEqual(first);
    expect(first.files).toEqual(['package.json', 'dist/bin/throttlelab.js']);
    expect(await readFile(first.tarball, 'utf8')).toBe('console.log(1);');
    expect(first.project).toBe(join(first.tarball, '..', 'project'));
  });

  it.each([
    ['the built code', 'dist/bin/throttlelab.js'],
    ['a new built file', 'dist/bin/new.js'],
    ['a scenario', 'scenarios/quickstart.yaml'],
    ['the docs', 'docs/ci.md'],
    ['the manifest', 'package.json'],
    ['the lock file', 'package-lock.json'],
  ])('packs again given a change to %s, never handing out the old tarball', async (_, file) => {
    const { root, cacheRoot } = await checkout();
    const pack = fakePack();
    const clock = at('2026-12-03T06:00:00Z');
    const before = await packedPackage({ root, cacheRoot, pack, clock });
    await writeFile(join(root, file), 'console.log(2);');
    const after = await packedPackage({ root, cacheRoot, pack, clock });
    expect(pack.calls).toBe(2);
    expect(after.tarball).not.toBe(before.tarball);
    expect(await readFile(after.tarball, 'utf8')).toBe(
      file === 'dist/bin/throttlelab.js' ? 'console.log(2);' : 'console.log(1);',
    );
  });

  it('reuses the pack given a change outside what the tarball can hold (the sources, tsc rebuilds dist)', async () => {
    const { root, cacheRoot } = await checkout();
    const pack = fakePack();
    const clock = at('2026-12-03T06:00:00Z');
    await packedPackage({ root, cacheRoot, pack, clock });
    await writeFile(join(root, 'router/index.ts'), 'export const x = 1;');
    await packedPackage({ root, cacheRoot, pack, clock });
    expect(pack.calls).toBe(1);
  });

  it('packs again on the next UTC day: the dependencies are resolved from the registry afresh', async () => {
    const { root, cacheRoot } = await checkout();
    const pack = fakePack();
    await packedPackage({ root, cacheRoot, pack, clock: at('2026-12-03T23:59:00Z') });
    await packedPackage({ root, cacheRoot, pack, clock: at('2026-12-04T00:01:00Z') });
    expect(pack.calls).toBe(2);
  });

  it('copies the installed project without sharing the hidden lock file npm rewrites in place', async () => {
    const { root, cacheRoot } = await checkout();
    const packed = await packedPackage({ root, cacheRoot, pack: fakePack(), clock: at('2026-12-03T06:00:00Z') });
    const copy = join(cacheRoot, '..', 'copy');
    await copyInstalledProject(packed, copy);
    await writeFile(join(copy, 'node_modules/.package-lock.json'), '{ "rewritten": true }');
    expect(await readFile(join(packed.project, 'node_modules/.package-lock.json'), 'utf8')).toBe('{ "cached": true }');
    // The package itself is hard-linked, not copied: the copy takes a second, not ten.
    expect((await stat(join(copy, 'node_modules/throttlelab/index.js'))).ino).toBe(
      (await stat(join(packed.project, 'node_modules/throttlelab/index.js'))).ino,
    );
    expect(JSON.parse(await readFile(join(copy, 'package.json'), 'utf8'))).toEqual({
      name: 'my-router',
      private: true,
      type: 'module',
    });
  });
});
