import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { HarnessError, renderVerdictTable, reportsOf, writeReportFolder } from '../../harness/index.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';

/** Re-renders a saved `report.json` (Markdown, JUnit, HTML) and prints its verdict table. */
export async function report(options: { file: string; out?: string }, io: Io): Promise<ExitCode> {
  const text = await readFile(options.file, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new HarnessError('HARNESS_REPORT_INVALID', `${options.file} is not JSON: ${(error as Error).message}.`);
  }
  const reports = reportsOf(json, options.file);
  for (const r of reports) io.out(renderVerdictTable(r));
  const paths = await writeReportFolder(options.out ?? dirname(options.file), reports);
  io.out(`report: ${paths.html}`);
  return reports.every((r) => r.verdict === 'pass') ? EXIT.OK : EXIT.CHECK_FAILED;
}
