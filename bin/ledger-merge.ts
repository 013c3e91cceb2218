import { readFile, rm, writeFile } from 'node:fs/promises';
import type { LedgerRow } from '../simulator/index.js';

/**
 * Merges the workers' JSONL ledgers into one file, by arrival time (ties: worker order, then each
 * worker's own order), numbering the rows afresh: each worker numbered its own from zero. The
 * parts are removed once the whole file is written. Returns the rows written.
 */
export async function mergeLedgerParts(parts: readonly string[], out: string): Promise<number> {
  const rows: Array<{ row: LedgerRow; part: number; line: number }> = [];
  for (const [part, file] of parts.entries()) {
    const text = await readFile(file, 'utf8').catch(() => '');
    let line = 0;
    for (const l of text.split('\n')) if (l) rows.push({ row: JSON.parse(l) as LedgerRow, part, line: line++ });
  }
  rows.sort((a, b) => a.row.arrivalAt - b.row.arrivalAt || a.part - b.part || a.line - b.line);
  const text = rows.map(({ row }, seq) => `${JSON.stringify({ ...row, seq })}\n`).join('');
  await writeFile(out, text);
  await Promise.all(parts.map((p) => rm(p, { force: true })));
  return rows.length;
}
