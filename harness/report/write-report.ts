import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HarnessError } from '../errors.js';
import type { Report } from './report.js';
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
  await writeFile(
    paths.json,
    `${JSON.stringify(reports.length === 1 ? reports[0] : { schema: 'throttlelab.reports/v1', reports }, null, 2)}\n`,
  );
  await writeFile(paths.junit, renderJunit(reports));
  await writeFile(paths.markdown, renderMarkdown(reports));
  await writeFile(paths.html, renderHtml(reports));
  return paths;
}

/** Reads the reports a `report.json` holds (one run, or a conformance pack). */
export function reportsOf(json: unknown, file = 'the report'): Report[] {
  const j = json as { schema?: string; reports?: Report[] };
  if (j?.schema === 'throttlelab.report/v1') return [json as Report];
  if (j?.schema === 'throttlelab.reports/v1' && Array.isArray(j.reports)) return j.reports;
  throw new HarnessError(
    'HARNESS_REPORT_INVALID',
    `Failed to read ${file}: it is not a throttlelab report (schema throttlelab.report/v1 or throttlelab.reports/v1).`,
  );
}
