import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeReportFolder, type Report } from '../../harness/index.js';
import { EXIT, interruptedCode, verdictCode, type ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import { CliError, isInterrupted } from '../errors.js';
import { assertWritableDir } from '../output-dir.js';
import { keepLogs } from './keep-logs.js';
import { executeRun, prepareRun, type Prepared, type RouterChoice } from './run.js';
import { quitHook, writeEvidenceFiles } from '../evidence-files.js';
import { planEvidence, type EvidenceMode, type EvidencePlan } from '../evidence-plan.js';
import { createProgressMeter, stepMeter } from '../progress/progress-meter.js';
import { PoolMeter, runPool } from './conform-pool.js';

/** Options of `throttlelab conform`. */
export interface ConformOptions extends RouterChoice {
  dir: string;
  /** Run the pack's fleet group (`<dir>/fleet`): replicas judged as one router. */
  fleet?: boolean;
  seed?: number;
  /** Seeds as `1..12` or `1,5,9`: one pack verdict over all of them (FAIL if any seed fails a check). */
  seeds?: string;
  out?: string;
  /** Run only scenarios whose file name contains this. */
  only?: string;
  simPort?: number;
  /** `--evidence`: which raw evidence to keep beside each scenario's report (default full). */
  evidence?: EvidenceMode;
  /** `--jobs`: how many scenarios run side by side on the wall clock (default 1). */
  jobs?: number;
}

/** One scenario judged: its report (evidence files named), its router's logs and the evidence kept. */
interface Judged {
  report: Report;
  logs: string[];
  plan?: EvidencePlan;
}

/** A run's report with the evidence `mode` keeps, its files named under logs/<scenario>/. */
function keepEvidence(run: Awaited<ReturnType<typeof executeRun>>, mode: EvidenceMode): Judged {
  const plan =
    run.rows && run.outcomes ? planEvidence(mode, run.report, { rows: run.rows, outcomes: run.outcomes }) : undefined;
  const name = run.report.scenario.name;
  // Each scenario's evidence lives in logs/<name>/, beside its router.log.
  const report = plan
    ? { ...run.report, evidence: { ...plan.kept, files: plan.kept.files.map((f) => `logs/${name}/${f}`) } }
    : run.report;
  return { report, logs: run.logs, ...(plan ? { plan } : {}) };
}

/** Why `--jobs` above 1 cannot be honoured with these options, if it cannot. */
function jobsRefusal(o: ConformOptions): string | undefined {
  if ((o.jobs ?? 1) <= 1) return undefined;
  if (o.seeds !== undefined)
    return '--jobs runs scenarios side by side; --seeds runs them in worker processes already.';
  if (o.time === 'simulated')
    return '--jobs helps runs that wait on the wall clock; simulated runs use the CPU: run seeds in parallel with --seeds or explore --workers.';
  if (o.routerUrl !== undefined)
    return '--jobs needs a router per scenario: one --router-url would serve several scenarios at once and mix their state.';
  if (o.simPort !== undefined) return '--sim-port fixes one simulator port; scenarios side by side need one each.';
  return undefined;
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
  const refusal = jobsRefusal(options);
  if (refusal) throw new CliError('CLI_USAGE', refusal);
  if (options.seeds !== undefined) {
    if (options.seed !== undefined) throw new CliError('CLI_USAGE', '--seed and --seeds: give one or the other.');
    const { conformOverSeeds } = await import('./conform-seeds.js');
    return conformOverSeeds(
      files.map((f) => join(options.dir, f)),
      { ...options, seeds: options.seeds },
      io,
    );
  }
  const prepared: Array<{ file: string; p: Prepared }> = [];
  for (const f of files) {
    const p = await prepareRun(join(options.dir, f), options, io);
    if (!p) return EXIT.BAD_INPUT;
    prepared.push({ file: join(options.dir, f), p });
  }
  const jobs = options.jobs ?? 1;
  // One meter over the pack: "3/12 name" one at a time, or what is done and running side by side.
  const meter = createProgressMeter(io);
  const pool = jobs > 1 ? new PoolMeter(meter, prepared.length) : undefined;
  let stopped = false;
  const one = async (i: number): Promise<Judged | undefined> => {
    const { file, p } = prepared[i]!;
    const seed = options.seed ?? p.scenario.seed ?? io.randomSeed();
    io.out(`→ ${p.scenario.name} (seed ${seed})`);
    // Side by side, a result line names its scenario: the lines of several interleave.
    const named = pool ? `${p.scenario.name}: ` : '';
    const shared = pool?.step(i, p.scenario.name);
    const step = shared ?? stepMeter(meter, i, prepared.length, p.scenario.name);
    step.update(0, 'starting');
    let run: Awaited<ReturnType<typeof executeRun>>;
    try {
      run = await executeRun(p, file, seed, io, options.simPort, undefined, step);
    } catch (error) {
      // Stopped while its router started: nothing of this scenario ran.
      if (!isInterrupted(error)) throw error;
      io.out(`  ${named}INTERRUPTED before its load started`);
      stopped = true;
      return undefined;
    } finally {
      shared?.end();
    }
    const judged = keepEvidence(run, options.evidence ?? 'full');
    const report = judged.report;
    const failed = report.checks.filter((c) => c.verdict === 'fail');
    const summary = `${report.load.sent} requests, ${Object.entries(report.load.byStatus)
      .map(([k, v]) => `${v}×${k}`)
      .join(
        ' ',
      )}, p99 ${report.latency.answered.p99 === null ? 'n/a' : `${Math.round(report.latency.answered.p99)} ms`}`;
    io.out(
      `  ${named}${report.verdict.toUpperCase()} (${summary})${failed.length ? `: ${failed.map((c) => `${c.id} (${c.figure})`).join('; ')}` : ''}`,
    );
    if (report.verdict === 'inconclusive')
      for (const why of report.inconclusive ?? []) io.out(`    ${named}inconclusive: ${why}`);
    if (report.verdict === 'interrupted') stopped = true;
    return judged;
  };
  const results = await runPool(prepared.length, jobs, one, () => stopped || io.stop.aborted);
  // A scenario never started (stopped before it) makes the pack interrupted, as one stopped midway does.
  if (results.some((r) => r === undefined)) stopped = true;
  const done = results.filter((r): r is Judged => r !== undefined);
  const reports = done.map((r) => r.report);
  const logs = done.filter((r) => r.logs.length > 0).map((r): [string, string[]] => [r.report.scenario.name, r.logs]);
  const evidence = done
    .filter((r) => r.plan !== undefined && r.plan.kept.mode !== 'none')
    .map((r): [string, EvidencePlan] => [r.report.scenario.name, r.plan!]);
  const notRun = prepared.filter((_, i) => results[i] === undefined);
  if (reports.length === 0) {
    io.err('conformance: interrupted before any scenario was judged; no report written.');
    return interruptedCode(io.stop);
  }
  const dir = options.out ?? join('reports', `conformance-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const paths = await writeReportFolder(dir, reports);
  for (const [name, files] of logs) await keepLogs(files, join(dir, 'logs', name));
  // Each scenario's ledger.jsonl and outcomes.jsonl, beside its router.log.
  for (const [name, plan] of evidence)
    await writeEvidenceFiles(join(dir, 'logs', name), plan, quitHook(io), plan.kept.files[0]!.endsWith('.gz'));
  const passed = reports.filter((r) => r.verdict === 'pass').length;
  if (stopped) {
    const never = notRun.map(({ p }) => p.scenario.name);
    io.out(
      `conformance: INTERRUPTED, not a pass: ${passed} of ${prepared.length} scenarios pass against ${reports[0]!.router}, ${reports.length - passed} ${reports.length - passed === 1 ? 'was' : 'were'} not (or stopped), ${never.length} never ran${never.length ? ` (${never.join(', ')})` : ''}`,
    );
    io.out(`report: ${paths.html}`);
    return interruptedCode(io.stop);
  }
  const failedRuns = reports.filter((r) => r.verdict === 'fail').length;
  const unsure = reports.length - passed - failedRuns;
  io.out(
    `conformance: ${passed} of ${reports.length} scenarios pass against ${reports[0]!.router}${failedRuns || unsure ? ` (${failedRuns} fail, ${unsure} inconclusive)` : ''}`,
  );
  io.out(`report: ${paths.html}`);
  return verdictCode(reports.map((r) => r.verdict));
}
