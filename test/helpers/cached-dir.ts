import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
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
  const isWhole = () => existsSync(join(final, COMPLETE_MARKER));
  if (isWhole()) return final;
  await mkdir(options.root, { recursive: true });
  return withLock(
    `${final}.lock`,
    async () => {
      // Another run may have filled it while this one waited for the lock.
      if (!isWhole()) await fillAtomically(final, options.fill);
      return final;
    },
    options,
  );
}
