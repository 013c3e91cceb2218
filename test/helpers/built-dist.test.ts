import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { builtDist } from './built-dist.js';
import type { CacheClock } from './with-lock.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const T0 = new Date('2026-12-03T06:00:00Z');
const later = (s: number) => new Date(T0.getTime() + s * 1000);

async function touch(file: string, at: Date, text = ''): Promise<void> {
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, text);
  await utimes(file, at, at);
}

/** A checkout whose sources were written at T0, and a build that writes dist/ a minute later. */
async function checkout() {
  const base = await mkdtemp(join(tmpdir(), 'throttlelab-built-dist-'));
  dirs.push(base);
  const root = join(base, 'repo');
  await touch(join(root, 'router/index.ts'), T0);
  await touch(join(root, 'bin/throttlelab.ts'), T0);
  const build = Object.assign(
    async (r: string) => {
      build.calls++;
      await touch(join(r, 'dist/bin/throttlelab.js'), later(60 * build.calls));
      await touch(join(r, 'dist/router/index.js'), later(60 * build.calls));
    },
    { calls: 0 },
  );
  const clock: CacheClock = { now: () => Date.now(), sleep: async () => {} };
  return { root, build, lockFile: join(base, 'build.lock'), clock };
}

describe('builtDist', () => {
  it('builds a checkout without dist/, then not again while the sources are unchanged', async () => {
    const c = await checkout();
    await builtDist(c);
    await builtDist(c);
    expect(c.build.calls).toBe(1);
  });

  it('builds again given a source newer than dist/, but not given a newer test', async () => {
    const c = await checkout();
    await builtDist(c);
    await touch(join(c.root, 'router/breaker.test.ts'), later(600));
    await touch(join(c.root, 'harness/x.case.ts'), later(600));
    await builtDist(c);
    expect(c.build.calls).toBe(1);
    await touch(join(c.root, 'simulator/engine.ts'), later(600));
    await builtDist(c);
    expect(c.build.calls).toBe(2);
  });

  it("takes over a dead run's build lock", async () => {
    const c = await checkout();
    await writeFile(c.lockFile, JSON.stringify({ pid: 4242, at: Date.now(), token: 'other' }));
    await builtDist({ ...c, isAlive: (pid) => pid !== 4242 });
    expect(c.build.calls).toBe(1);
  });

  it('builds once when another run built while this one waited for the lock', async () => {
    const c = await checkout();
    await writeFile(c.lockFile, JSON.stringify({ pid: 4242, at: Date.now(), token: 'other' }));
    const clock: CacheClock = {
      now: () => Date.now(),
      sleep: async () => {
        await c.build(c.root);
        await rm(c.lockFile);
      },
    };
    await builtDist({ ...c, clock, isAlive: () => true });
    expect(c.build.calls).toBe(1);
  });
});
