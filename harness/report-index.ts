/**
 * @module throttlelab harness, report part: reading, rendering and comparing reports alone, without
 * the runner, the load generators or the simulator's engine, for the cold start of `throttlelab
 * report` (and `report --compare`). `index.ts` re-exports the same functions.
 */
export { HarnessError } from './errors.js';
export type { Report } from './report/report.js';
export { renderVerdictTable } from './report/render-text.js';
export { writeReportFolder, reportsOf } from './report/write-report.js';
export { compareReports, DEFAULT_TOLERANCE } from './report/compare-reports.js';
export { renderCompareTable, renderCompareMarkdown, renderCompareHtml } from './report/render-compare.js';
