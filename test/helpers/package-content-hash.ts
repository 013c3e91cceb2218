import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/**
 * What `npm pack` can put in the tarball, and what decides its dependencies: a superset of the
 * package's `files` (test/e2e/pack-install.test.ts checks the tarball holds nothing outside these),
 * so a change to anything packed changes the hash.
 */
export const PACKED_PATHS = ['package.json', 'package-lock.json', 'README.md', 'LICENSE', 'dist', 'scenarios', 'docs'];

async function filesUnder(path: string): Promise<string[]> {
  if (!existsSync(path)) return [];
  const entries = await readdir(path, { withFileTypes: true, recursive: true }).catch(() => undefined);
  // Not a directory: the path is a file of its own.
  if (!entries) return [path];
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** A sha256 over the names and bytes of every file under `PACKED_PATHS` in `root`, in a stable order. */
export async function packageContentHash(root: string): Promise<string> {
  const files = (await Promise.all(PACKED_PATHS.map((p) => filesUnder(join(root, p))))).flat();
  const named = files.map((f) => relative(root, f).split('\\').join('/')).sort();
  const hash = createHash('sha256');
  for (const name of named) {
    hash.update(`${name}\0`);
    hash.update(await readFile(join(root, name)));
    hash.update('\0');
  }
  return hash.digest('hex');
}
