import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { CliError } from './errors.js';

/**
 * Reads a JSON-lines evidence file item by item, plain or gzip-compressed (a `.gz` name), as a
 * stream: a day's ledger is never one string in memory. A line that is not JSON is an error
 * naming the file and line.
 */
export async function* readJsonl(path: string): AsyncGenerator<unknown> {
  const file = createReadStream(path);
  const text: Readable = path.endsWith('.gz') ? file.pipe(createGunzip()) : file;
  // A gunzip error (a truncated file) ends the lines with it, not silently.
  file.on('error', (e) => text.destroy(e));
  let n = 0;
  for await (const line of createInterface({ input: text, crlfDelay: Infinity })) {
    n++;
    if (!line) continue;
    try {
      yield JSON.parse(line);
    } catch (error) {
      throw new CliError('CLI_EVIDENCE_INVALID', `${path}:${n}: not a JSON line (${(error as Error).message}).`);
    }
  }
}

/** The evidence file named `base` (`ledger` or `outcomes`) in a run folder: plain or gzip, or undefined. */
export async function findEvidenceFile(dir: string, base: 'ledger' | 'outcomes'): Promise<string | undefined> {
  for (const name of [`${base}.jsonl`, `${base}.jsonl.gz`]) {
    const path = join(dir, name);
    if (
      await access(path).then(
        () => true,
        () => false,
      )
    )
      return path;
  }
  return undefined;
}
