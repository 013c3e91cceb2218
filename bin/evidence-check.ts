import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { Report } from '../harness/report-index.js';
import { readJsonl } from './evidence-read.js';

/**
 * Reads back the evidence files a report lists (plain or gzip) and says whether they hold what
 * the report says was written: one line, or none for a report that lists none (written before
 * `--evidence`, or with `--evidence none`, which its verdict table already says).
 */
export async function checkEvidence(dir: string, r: Pick<Report, 'evidence'>): Promise<string | undefined> {
  const e = r.evidence;
  if (!e || e.files.length === 0) return undefined;
  const said = (f: string) => (/(^|\/)ledger\.jsonl/.test(f) ? e.attempts : e.outcomes);
  const read: string[] = [];
  for (const f of e.files) {
    const path = join(dir, f);
    if (
      !(await access(path).then(
        () => true,
        () => false,
      ))
    )
      return `evidence: ${f} is missing (the report lists it)`;
    let n = 0;
    for await (const _ of readJsonl(path)) n++;
    if (n !== said(f)) return `evidence: ${f} holds ${n} lines, the report says ${said(f)} (changed or cut short)`;
    read.push(`${f} ${n}`);
  }
  return `evidence read back whole: ${read.join(', ')}`;
}
