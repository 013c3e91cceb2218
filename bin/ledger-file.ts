import { open } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import type { LedgerRow } from '../simulator/index.js';
import { CliError } from './errors.js';

/** A JSONL ledger file written row by row as attempts end. */
export interface LedgerFile {
  write(row: LedgerRow): void;
  /** Flushes and closes the file; what was written, what was lost, and the write error if any. */
  close(): Promise<{ rows: number; lost: number; error?: NodeJS.ErrnoException }>;
}

/**
 * Opens `--ledger-out` before anything starts (an unwritable path is a usage error, not a crash
 * later). A write error later (a full disk) is reported once through `onError` and never thrown
 * from an event: the server keeps serving, later rows are counted as lost, and `close` says so.
 */
export async function openLedgerFile(
  path: string,
  onError: (error: NodeJS.ErrnoException) => void,
): Promise<LedgerFile> {
  const handle = await open(path, 'w').catch((error: NodeJS.ErrnoException) => {
    throw new CliError('CLI_OUTPUT_UNWRITABLE', `--ledger-out ${path}: cannot write (${error.code}).`, {
      cause: error,
    });
  });
  const stream = handle.createWriteStream();
  let error: NodeJS.ErrnoException | undefined;
  let rows = 0;
  let lost = 0;
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (error) return;
    error = e;
    onError(e);
  });
  return {
    write(row) {
      if (error || stream.writableEnded) {
        lost++;
        return;
      }
      stream.write(`${JSON.stringify(row)}\n`);
      rows++;
    },
    async close() {
      if (!stream.writableEnded && !stream.destroyed) stream.end();
      await finished(stream).catch(() => {});
      return error ? { rows, lost, error } : { rows, lost };
    },
  };
}
