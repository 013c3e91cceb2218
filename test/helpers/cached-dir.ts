import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withLock, type LockOptions } from './with-lock.js';

export type { CacheClock } from './with-lock.js';

/** Written last into a filled directory, before the rename: a directory without it is not whole. */
export const COMPLETE_MARKER = '.complete';

export interface CachedDirOptions extends LockOptions {
  /** The folder holding the cache's entries, e.g. `$TMPDIR/throttlelab-packed`. */
  root: string;
  /** The entry's name: whatever decides whether an entry can be reused (a day, a content hash). */
  key: string;
  /** Fills a fresh, empty directory; it is renamed to the entry only once this resolves. */
  fill: (dir: string) => Promise<void>;
  /** Entries (and a killed run's scratch folders) unused for this long go when a new entry is filled. */
  pruneAfterMs?: number;
}

/**
 * Removes what in `root` has not been used for `afterMs`: other keys' entries (their marker is
 * touched on each use), scratch folders and locks of killed runs. A pack with its install is
 * 170 MB, and every change to dist/ makes a new one; other checkouts share $TMPDIR, so an entry
 * is never removed merely for being another key.
 */
async function prune(root: string, keep: string, afterMs: number, now: number): Promise<void> {
  for (const name of await readdir(root)) {
    if (name === keep || name === `${keep}.lock`) continue;
    const path = join(root, name);
    const used = await stat(join(path, COMPLETE_MARKER)).catch(() => stat(path).catch(() => undefined));
    if (used && now - used.mtimeMs > afterMs) await rm(path, { recursive: true, force: true });
  }
}

async function fillAtomically(final: string, fill: (dir: string) => Promise<void>): Promise<void> {
  // An entry without the marker (a run killed mid-copy, an older scheme) is not whole: never reused.
  await rm(final, { recursive: true, force: true });
  const partial = `${final}.partial-${process.pid}-${randomUUID()}`;
  await mkdir(partial);
  try {
    await fill(partial);
    await writeFile(join(partial, COMPLETE_MARKER), '');
    await rename(partial, final);
  } catch (e) {
    await rm(partial, { recursive: true, force: true });
    throw e;
  }
}

/**
 * The directory `root/key`, filled once by `fill` and reused after: one filler at a time across
 * processes (`withLock` on `root/key.lock`), the fill done in a scratch directory renamed into
 * place when whole.
 */
export async function cachedDir(options: CachedDirOptions): Promise<string> {
  const final = join(options.root, options.key);
  const marker = join(final, COMPLETE_MARKER);
  const now = () => options.clock?.now() ?? Date.now();
  // Whole, and marked as used now (so no other run prunes it); false if absent or pruned meanwhile.
  const reuse = async () => {
    const at = new Date(now());
    return utimes(marker, at, at).then(
      () => true,
      () => false,
    );
  };
  if (await reuse()) return final;
  await mkdir(options.root, { recursive: true });
  return withLock(
    `${final}.lock`,
    async () => {
      // Another run may have filled it while this one waited for the lock.
      if (await reuse()) return final;
      await fillAtomically(final, options.fill);
      await prune(options.root, options.key, options.pruneAfterMs ?? 2 * 3_600_000, now());
      await reuse();
      return final;
    },
    options,
  );
}
