import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { ClientOutcome } from '../harness/index.js';
import type { LedgerRow } from '../simulator/index.js';

/** Lines are written in chunks of about this many characters (one write per line cost a buffer each). */
const CHUNK = 1 << 16;

/** Writes one JSON line per item, streamed (a long run's ledger is never one string in memory). */
async function writeJsonl(path: string, items: Iterable<unknown>): Promise<void> {
  const out = createWriteStream(path);
  let chunk = '';
  const write = async (text: string) => {
    if (!out.write(text)) await new Promise<void>((r) => out.once('drain', () => r()));
  };
  for (const item of items) {
    chunk += `${JSON.stringify(item)}\n`;
    if (chunk.length >= CHUNK) {
      await write(chunk);
      chunk = '';
    }
  }
  if (chunk) await write(chunk);
  out.end();
  await finished(out);
}

/**
 * Keeps a run's raw evidence beside its report: `ledger.jsonl` (every attempt the providers saw)
 * and `outcomes.jsonl` (what every client saw), joined by correlation id, the id each piece of a
 * check's evidence names. Neither holds a key: the ledger names keys by their id.
 */
export async function writeEvidenceFiles(
  dir: string,
  data: { rows: readonly LedgerRow[]; outcomes: readonly ClientOutcome[] },
): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const ledger = join(dir, 'ledger.jsonl');
  const outcomes = join(dir, 'outcomes.jsonl');
  await writeJsonl(ledger, data.rows);
  await writeJsonl(outcomes, data.outcomes);
  return [ledger, outcomes];
}
