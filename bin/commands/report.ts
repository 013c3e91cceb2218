import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  HarnessError,
  renderVerdictTable,
  reportsOf,
  writeReportFolder,
  type Report,
} from '../../harness/report-index.js';
import { verdictCode, type ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import { checkEvidence } from '../evidence-check.js';

/**
 * Re-renders a saved `report.json` (Markdown, JUnit, HTML), prints its verdict table and reads back
 * the evidence files it lists (a missing or cut file is said on stderr); exits as
 * the run did (0 pass, 1 fail, 3 inconclusive), and 3 for a saved interrupted run (never a pass).
 */
export async function report(options: { file: string; out?: string }, io: Io): Promise<ExitCode> {
  const reports = await readReports(options.file);
  for (const r of reports) {
    io.out(renderVerdictTable(r));
    // The evidence beside the report, plain or gzip, read back and counted.
    const evidence = await checkEvidence(dirname(options.file), r);
    if (evidence) (evidence.startsWith('evidence read back') ? io.out : io.err)(evidence);
  }
  const paths = await writeReportFolder(options.out ?? dirname(options.file), reports);
  io.out(`report: ${paths.html}`);
  return verdictCode(reports.map((r) => r.verdict));
}

/** Reads and checks the reports a `report.json` holds. */
export async function readReports(file: string): Promise<Report[]> {
  const text = await readReportText(file);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new HarnessError('HARNESS_REPORT_INVALID', `${file} is not JSON: ${(error as Error).message}.`);
  }
  return reportsOf(json, file);
}

// Far above a conformance pack's report (a few MB), far below what exhausts memory.
const MAX_REPORT_BYTES = 64 * 1024 * 1024;

/** Reads at most 64 MiB of a report (a device or a huge file is refused without being read whole). */
export async function readReportText(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const chunk = Buffer.alloc(1024 * 1024);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      size += bytesRead;
      if (size > MAX_REPORT_BYTES)
        throw new HarnessError(
          'HARNESS_REPORT_INVALID',
          `${file} is over ${MAX_REPORT_BYTES / 1024 / 1024} MiB: not a report throttlelab wrote.`,
        );
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    await handle.close();
  }
}
