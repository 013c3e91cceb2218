import { randomUUID } from 'node:crypto';
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { setImmediate as turn } from 'node:timers/promises';
import { createGzip, type Gzip } from 'node:zlib';
import type { ClientOutcome } from '../harness/index.js';
import type { LedgerRow } from '../simulator/index.js';
import { CliError } from './errors.js';

/** Lines are written in chunks of about this many characters (one write per line cost a buffer each). */
const CHUNK = 1 << 16;

/** How evidence reaches the disk: the file system's, or a test's failing one. */
export interface EvidenceWrites {
  /** Writes all of `data` to the open file `fd`, or throws (ENOSPC, EIO…). */
  write(fd: number, data: string | Uint8Array): void;
  /** Registers synchronous cleanup for a quit at once (a second Ctrl-C): the temporary file. */
  onQuit?(cleanup: () => void): void;
}

const fileSystem: EvidenceWrites = {
  write: (fd, data) => {
    // writeSync may write part of a buffer; the rest follows (a full disk throws).
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
  },
};

/** The temporary files' cleanup on a quit at once, registered with the command's `Io`. */
export function quitHook(io: { onQuit?(cleanup: () => void): void }): Partial<EvidenceWrites> {
  return io.onQuit ? { onQuit: (cleanup) => io.onQuit!(cleanup) } : {};
}

/**
 * Writes one JSON line per item into `path` through a temporary file renamed into place, so that
 * a partial file (a full disk, a second Ctrl-C) is never there to pass for a complete one: an
 * empty `ledger.jsonl` reads as "no attempts". Each chunk is written synchronously and the loop
 * gets a turn between chunks: a signal handler never finds a chunk half-written, and a long
 * run's ledger is never one string in memory. A `.gz` path goes through a node:zlib gzip stream
 * whose compressed output takes the same synchronous writes.
 */
async function writeJsonl(path: string, items: Iterable<unknown>, writes: EvidenceWrites): Promise<void> {
  const temporary = `${path}.${randomUUID().slice(0, 8)}.tmp`;
  let fd: number | undefined;
  const discard = () => {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
    rmSync(temporary, { force: true });
  };
  writes.onQuit?.(discard);
  try {
    const file = openSync(temporary, 'w');
    fd = file;
    const sink = path.endsWith('.gz') ? gzipSink(file, writes) : plainSink(file, writes);
    let chunk = '';
    for (const item of items) {
      chunk += `${JSON.stringify(item)}\n`;
      if (chunk.length >= CHUNK) {
        await sink.write(chunk);
        chunk = '';
        await turn();
      }
    }
    if (chunk) await sink.write(chunk);
    await sink.end();
    closeSync(file);
    fd = undefined;
    renameSync(temporary, path);
  } catch (error) {
    try {
      discard();
    } catch {
      // the write's error is the one to report
    }
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new CliError(
      'CLI_OUTPUT_UNWRITABLE',
      `Failed to write ${path}: ${code}. The report beside it stands; free some space (or name another --out) and run again for this evidence.`,
      { cause: error },
    );
  }
}

/** Where a JSONL file's text goes: straight to the file, or through gzip. */
interface Sink {
  write(text: string): Promise<void>;
  end(): Promise<void>;
}

function plainSink(fd: number, writes: EvidenceWrites): Sink {
  return { write: async (text) => writes.write(fd, text), end: async () => {} };
}

/** Text through a gzip stream; each compressed piece is written as it comes, a failed write fails the stream. */
function gzipSink(fd: number, writes: EvidenceWrites): Sink {
  const gzip: Gzip = createGzip();
  gzip.on('data', (piece: Buffer) => {
    try {
      writes.write(fd, piece);
    } catch (error) {
      gzip.destroy(error as Error);
    }
  });
  const done = finished(gzip);
  // An error before `end` is awaited would otherwise be unhandled; `end` reports it.
  done.catch(() => {});
  return {
    async write(text) {
      if (gzip.destroyed) await done;
      if (!gzip.write(text)) await Promise.race([once(gzip, 'drain'), done]);
    },
    async end() {
      gzip.end();
      await done;
    },
  };
}

/**
 * Keeps a run's raw evidence beside its report: `ledger.jsonl` (every attempt the providers saw)
 * and `outcomes.jsonl` (what every client saw), joined by correlation id, the id each piece of a
 * check's evidence names. Neither holds a key: the ledger names keys by their id. Each file is
 * whole or absent. `gzip`: `ledger.jsonl.gz` and `outcomes.jsonl.gz` instead (see `planEvidence`).
 */
export async function writeEvidenceFiles(
  dir: string,
  data: { rows: Iterable<LedgerRow>; outcomes: Iterable<ClientOutcome> },
  writes: Partial<EvidenceWrites> = {},
  gzip = false,
): Promise<string[]> {
  const w: EvidenceWrites = { ...fileSystem, ...writes };
  await mkdir(dir, { recursive: true });
  const ext = gzip ? '.jsonl.gz' : '.jsonl';
  const ledger = join(dir, `ledger${ext}`);
  const outcomes = join(dir, `outcomes${ext}`);
  await writeJsonl(ledger, data.rows, w);
  await writeJsonl(outcomes, data.outcomes, w);
  return [ledger, outcomes];
}
