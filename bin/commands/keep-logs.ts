import { copyFile, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/**
 * Removes the temporary folders the run's router logs were written to (`throttlelab-fleet-*`, with
 * a fleet's router.json, and `throttlelab-router-*`), once they are kept or no longer wanted.
 * Only folders of ours directly in the temporary directory: never one a user named.
 */
async function removeLogFolders(logs: readonly string[]): Promise<void> {
  const ours = new Set(
    logs.map(dirname).filter((d) => dirname(d) === tmpdir() && /^throttlelab-(fleet|router)-/.test(basename(d))),
  );
  for (const d of ours) await rm(d, { recursive: true, force: true });
}

/** Copies a run's router logs (a fleet's: one per replica) into `dir`, then removes their temporary folders. */
export async function keepLogs(logs: readonly string[], dir: string): Promise<string[]> {
  if (logs.length === 0) return [];
  await mkdir(dir, { recursive: true });
  const kept: string[] = [];
  for (const f of logs) {
    const to = join(dir, basename(f));
    if (
      await copyFile(f, to).then(
        () => true,
        () => false,
      )
    )
      kept.push(to);
  }
  await removeLogFolders(logs);
  return kept;
}
