import { execFileSync } from 'node:child_process';

let read = false;
let limit: number | undefined;

/**
 * The process's open-files limit (`ulimit -n`, which Node does not expose), read from a shell
 * once a process; undefined where it is unlimited or cannot be read (no `sh`, as on Windows).
 */
export function readOpenFilesLimit(): number | undefined {
  if (read) return limit;
  read = true;
  try {
    const text = execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8', timeout: 2000 }).trim();
    const n = Number(text);
    limit = Number.isSafeInteger(n) && n > 0 ? n : undefined;
  } catch {
    limit = undefined;
  }
  return limit;
}
