import { open } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import type { LedgerRow } from '../simulator/index.js';
import { CliError } from './errors.js';

/** A JSONL ledger file written row by row as attempts end. */
export interface LedgerFile {
  write(row: LedgerRow): void;
  /**
   * Flushes and closes the file: the rows the file system took (`rows`), those handed to it that
   * it did not (`lost`: not written, or buffered when a write failed), and the write error if any.
   */
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
  // Counted when the file system confirms each write, not when it is queued: after an error,
  // rows queued before it are not in the file either.
  let handed = 0;
  let rows = 0;
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (error) return;
    error = e;
    onError(e);
  });
  return {
    write(row) {
      handed++;
      if (error || stream.writableEnded) return;
      stream.write(`${JSON.stringify(row)}\n`, (e) => {
        if (!e) rows++;
      });
    },
    async close() {
      if (!stream.writableEnded && !stream.destroyed) stream.end();
      await finished(stream).catch(() => {});
      const lost = handed - rows;
      return error ? { rows, lost, error } : { rows, lost };
    },
  };
}
