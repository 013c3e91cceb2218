import { randomUUID } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { HarnessError } from '../errors.js';
import type { Report } from './report.js';
import { ReportSchema, ReportsSchema } from './report-schema.js';
import { formatPath } from '../../simulator/scenario-index.js';
import { renderHtml } from './render-html.js';
import { renderJunit, renderMarkdown } from './render-text.js';

/** Writes `report.json`, `junit.xml`, `summary.md` and `index.html` into `dir`; returns their paths. */
export async function writeReportFolder(
  dir: string,
  reports: readonly Report[],
): Promise<{ json: string; junit: string; markdown: string; html: string }> {
  await mkdir(dir, { recursive: true });
  const paths = {
    json: join(dir, 'report.json'),
    junit: join(dir, 'junit.xml'),
    markdown: join(dir, 'summary.md'),
    html: join(dir, 'index.html'),
  };
  // Every file is whole or absent: a process killed mid-write (a second Ctrl-C) leaves no half a report.
  await writeWhole(
    paths.json,
    `${JSON.stringify(reports.length === 1 ? reports[0] : { schema: 'throttlelab.reports/v1', reports }, null, 2)}\n`,
  );
  await writeWhole(paths.junit, renderJunit(reports));
  await writeWhole(paths.markdown, renderMarkdown(reports));
  await writeWhole(paths.html, renderHtml(reports));
  return paths;
}

/**
 * Writes a file through a temporary one renamed into place, so readers see all of it or none.
 * Synchronous on purpose: a signal handler (a second Ctrl-C quits at once) runs only between
 * ticks, so it never finds the temporary file half-written or left behind; written asynchronously,
 * the file could be created by the thread pool after a handler had removed it.
 */
async function writeWhole(path: string, text: string): Promise<void> {
  const temporary = `${path}.${randomUUID().slice(0, 8)}.tmp`;
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    // The system's message ("ENOSPC: no space left on device, write") does not say which file.
    throw new HarnessError(
      'HARNESS_REPORT_UNWRITABLE',
      `Failed to write ${path}: ${code}. Free some space or name another --out.`,
      {
        cause: error,
      },
    );
  }
}

/** Reads the reports a `report.json` holds (one run, or a conformance pack), checked field by field. */
export function reportsOf(json: unknown, file = 'the report'): Report[] {
  const j = json as { schema?: unknown };
  const schema = j !== null && typeof j === 'object' ? j.schema : undefined;
  if (schema !== 'throttlelab.report/v1' && schema !== 'throttlelab.reports/v1')
    throw new HarnessError(
      'HARNESS_REPORT_INVALID',
      `Failed to read ${file}: it is not a throttlelab report (schema throttlelab.report/v1 or throttlelab.reports/v1).`,
    );
  const parsed = (schema === 'throttlelab.report/v1' ? ReportSchema : ReportsSchema).safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    const more = parsed.error.issues.length - 1;
    const missing = first.code === 'invalid_type' && / received undefined$/.test(first.message);
    const what = missing
      ? `required field is missing (expected ${first.expected})`
      : first.message.replace(/^Invalid input: /, '');
    throw new HarnessError(
      'HARNESS_REPORT_INVALID',
      `Failed to read ${file}: ${formatPath(first.path as Array<string | number>)}: ${what}${more > 0 ? ` (and ${more} more problem${more === 1 ? '' : 's'})` : ''}. It is incomplete, or was not written by throttlelab; write it again with throttlelab run.`,
    );
  }
  const data = parsed.data as unknown as { reports?: Report[] };
  return schema === 'throttlelab.report/v1' ? [parsed.data as unknown as Report] : data.reports!;
}
