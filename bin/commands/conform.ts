import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeReportFolder, type Report } from '../../harness/index.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import { CliError } from '../errors.js';
import { assertWritableDir } from '../output-dir.js';
import { executeRun, keepLogs, prepareRun, type RouterChoice } from './run.js';

/** Options of `throttlelab conform`. */
export interface ConformOptions extends RouterChoice {
  dir: string;
  /** Run the pack's fleet group (`<dir>/fleet`): replicas judged as one router. */
  fleet?: boolean;
  seed?: number;
  out?: string;
  /** Run only scenarios whose file name contains this. */
  only?: string;
  simPort?: number;
}

/**
 * Runs the conformance pack against one router (the reference router unless `--router-cmd` or
 * `--router-url` names another) and writes one combined report.
 */
export async function conform(given: ConformOptions, io: Io): Promise<ExitCode> {
  const options = given.fleet ? { ...given, dir: join(given.dir, 'fleet') } : given;
  const entries = await readdir(options.dir).catch((error: NodeJS.ErrnoException) => {
    const why = error.code === 'ENOENT' ? 'no such folder' : error.code === 'ENOTDIR' ? 'not a folder' : error.code;
    throw new CliError(
      'CLI_NO_SCENARIOS',
      `--dir ${options.dir}: ${why}. Name the folder of the conformance scenarios.`,
    );
  });
  const files = entries.filter((f) => f.endsWith('.yaml') && (!options.only || f.includes(options.only))).sort();
  if (files.length === 0)
    throw new CliError(
      'CLI_NO_SCENARIOS',
      `--dir ${options.dir}: no scenario files (*.yaml)${options.only ? ` whose name contains "${options.only}"` : ''}.`,
    );
  await assertWritableDir(options.out ?? 'reports');
  const prepared = [];
  for (const f of files) {
    const p = await prepareRun(join(options.dir, f), options, io);
    if (!p) return EXIT.BAD_INPUT;
    prepared.push({ file: join(options.dir, f), p });
  }
  const reports: Report[] = [];
  const logs: Array<[string, string[]]> = [];
  for (const { file, p } of prepared) {
    const seed = options.seed ?? p.scenario.seed ?? io.randomSeed();
    io.out(`→ ${p.scenario.name} (seed ${seed})`);
    const run = await executeRun(p, file, seed, io, options.simPort);
    const report = run.report;
    if (io.stop.aborted) break;
    reports.push(report);
    if (run.logs.length > 0) logs.push([report.scenario.name, run.logs]);
    const failed = report.checks.filter((c) => c.verdict === 'fail');
    const summary = `${report.load.sent} requests, ${Object.entries(report.load.byStatus)
      .map(([k, v]) => `${v}×${k}`)
      .join(
        ' ',
      )}, p99 ${report.latency.answered.p99 === null ? 'n/a' : `${Math.round(report.latency.answered.p99)} ms`}`;
    io.out(
      `  ${report.verdict === 'pass' ? 'PASS' : 'FAIL'} (${summary})${failed.length ? `: ${failed.map((c) => `${c.id} (${c.figure})`).join('; ')}` : ''}`,
    );
  }
  const dir = options.out ?? join('reports', `conformance-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const paths = await writeReportFolder(dir, reports);
  for (const [name, files] of logs) await keepLogs(files, join(dir, 'logs', name));
  const passed = reports.filter((r) => r.verdict === 'pass').length;
  io.out(`conformance: ${passed} of ${reports.length} scenarios pass against ${reports[0]!.router}`);
  io.out(`report: ${paths.html}`);
  return passed === reports.length ? EXIT.OK : EXIT.CHECK_FAILED;
}
