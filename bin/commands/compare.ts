import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  compareReports,
  DEFAULT_TOLERANCE,
  renderCompareHtml,
  renderCompareMarkdown,
  renderCompareTable,
} from '../../harness/report-index.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import { readReports } from './report.js';

/** Options of `throttlelab report --compare`. */
export interface CompareOptions {
  before: string;
  after: string;
  /** Folder for compare.md and compare.html; without it nothing is written (the after run's folder stays as it was). */
  out?: string;
  /** Percent a count, share or ratio may get worse. */
  tolerance?: number;
  /** Percent a time may get worse; without it times are shown, not gated. */
  latencyTolerance?: number;
}

/**
 * Compares two reports check by check, prints the table and the overall verdict (better, worse,
 * mixed or same), writes `compare.md` and `compare.html` only into `--out`, and exits 1 when
 * anything got worse beyond the tolerance (0 otherwise): a gate for router upgrades.
 */
export async function compare(options: CompareOptions, io: Io): Promise<ExitCode> {
  const before = await readReports(options.before);
  const after = await readReports(options.after);
  const comparison = compareReports(before, after, {
    ...DEFAULT_TOLERANCE,
    percent: options.tolerance ?? DEFAULT_TOLERANCE.percent,
    latencyPercent: options.latencyTolerance,
  });
  io.out(`comparing ${options.before} (before) with ${options.after} (after)`);
  io.out('');
  io.out(renderCompareTable(comparison));
  const dir = options.out;
  if (dir === undefined) return comparison.worse ? EXIT.CHECK_FAILED : EXIT.OK;
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'compare.md'), renderCompareMarkdown(comparison));
  await writeFile(join(dir, 'compare.html'), renderCompareHtml(comparison));
  io.out(`compare: ${join(dir, 'compare.html')}, ${join(dir, 'compare.md')}`);
  return comparison.worse ? EXIT.CHECK_FAILED : EXIT.OK;
}
