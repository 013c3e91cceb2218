import { randomUUID } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';

/** The time a lock waits by: real in the suite, fake in the lock's own tests. */
export interface CacheClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: CacheClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface LockOptions {
  /** A lock older than this is a dead run's and is taken over. */
  staleLockMs?: number;
  pollMs?: number;
  clock?: CacheClock;
  /** Whether the process that wrote a lock still runs; a dead owner's lock is taken over at once. */
  isAlive?: (pid: number) => boolean;
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function isStale(lock: string, o: Required<LockOptions>): Promise<boolean> {
  const info = await stat(lock).catch(() => undefined);
  if (!info) return false;
  if (o.clock.now() - info.mtimeMs > o.staleLockMs) return true;
  // Just created and not yet written, the lock has no owner yet: only its age can make it stale.
  const owner = await readFile(lock, 'utf8').then(
    (text) => (JSON.parse(text) as { pid?: number }).pid,
    () => undefined,
  );
  return owner !== undefined && !o.isAlive(owner);
}

/** Moves a stale lock aside (one taker wins the rename) and removes it. */
async function takeOver(lock: string): Promise<void> {
  const aside = `${lock}.stale-${randomUUID()}`;
  try {
    await rename(lock, aside);
  } catch {
    return;
  }
  await rm(aside, { force: true });
}

/** Creates the lock (O_EXCL); its text, or undefined when another run holds it. */
async function tryLock(lock: string, now: number): Promise<string | undefined> {
  const text = JSON.stringify({ pid: process.pid, at: now, token: randomUUID() });
  try {
    const file = await open(lock, 'wx');
    await file.writeFile(text);
    await file.close();
    return text;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw e;
  }
}

/** Removes the lock if it is still ours: a run that overstayed may have had it taken over. */
async function unlock(lock: string, text: string): Promise<void> {
  if ((await readFile(lock, 'utf8').catch(() => undefined)) === text) await rm(lock, { force: true });
}

/**
 * Runs `fn` holding the lock file `lock`, across processes: created with O_EXCL, waited on while
 * another live run holds it, taken over when older than `staleLockMs` or its owner is dead.
 */
export async function withLock<T>(lock: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const o: Required<LockOptions> = {
    staleLockMs: options.staleLockMs ?? 10 * 60_000,
    pollMs: options.pollMs ?? 200,
    clock: options.clock ?? realClock,
    isAlive: options.isAlive ?? isProcessAlive,
  };
  for (;;) {
    const held = await tryLock(lock, o.clock.now());
    if (held === undefined) {
      if (await isStale(lock, o)) await takeOver(lock);
      else await o.clock.sleep(o.pollMs);
      continue;
    }
    try {
      return await fn();
    } finally {
      await unlock(lock, held);
    }
  }
}
