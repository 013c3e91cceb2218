import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { withLock, type LockOptions } from './with-lock.js';

const exec = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');

/** What `npm run build` compiles (tsconfig.build.json's include, tests left out). */
const SOURCE_DIRS = ['bin', 'router', 'simulator', 'harness'];

async function newestMtime(root: string, dirs: string[], keep: (name: string) => boolean): Promise<number> {
  let newest = 0;
  for (const d of dirs) {
    if (!existsSync(join(root, d))) continue;
    for (const e of await readdir(join(root, d), { withFileTypes: true, recursive: true })) {
      if (!e.isFile() || !keep(e.name)) continue;
      newest = Math.max(newest, (await stat(join(e.parentPath, e.name))).mtimeMs);
    }
  }
  return newest;
}

/** Whether `dist/` is missing or older than a source file (tsc rewrites every output of a changed source). */
export async function isDistStale(root = ROOT): Promise<boolean> {
  if (!existsSync(join(root, 'dist/bin/throttlelab.js'))) return true;
  const sources = await newestMtime(root, SOURCE_DIRS, (n) => n.endsWith('.ts') && !/\.(test|case)\.ts$/.test(n));
  return sources > (await newestMtime(root, ['dist'], () => true));
}

export interface BuiltDistOptions extends LockOptions {
  root?: string;
  /** One per checkout, outside it (dist/ is packed, the checkout is git's): in $TMPDIR by default. */
  lockFile?: string;
  /** Builds `root`; `npm run build` by default. */
  build?: (root: string) => Promise<void>;
}

const npmBuild = async (root: string) => {
  await exec('npm', ['run', 'build'], { cwd: root, timeout: 240_000, maxBuffer: 16 << 20 });
};

/**
 * `dist/` as the current sources build it: `npm test` builds first (pretest) and this does
 * nothing; a test file run alone builds what is stale, one tsc at a time across vitest's workers.
 */
export async function builtDist(options: BuiltDistOptions = {}): Promise<void> {
  const root = options.root ?? ROOT;
  const build = options.build ?? npmBuild;
  if (!(await isDistStale(root))) return;
  const checkout = createHash('sha256').update(root).digest('hex').slice(0, 12);
  await withLock(
    options.lockFile ?? join(tmpdir(), `throttlelab-build-${checkout}.lock`),
    async () => {
      if (await isDistStale(root)) await build(root);
    },
    { staleLockMs: 5 * 60_000, ...options },
  );
}
