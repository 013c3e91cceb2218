import { join } from 'node:path';
import {
  buildReport,
  launchCommand,
  launchUrl,
  loadRunScenarioFile,
  renderVerdictTable,
  runScenario,
  writeReportFolder,
  type LoadProgress,
  type Report,
  type RouterLauncher,
  type RunScenario as Scenario,
} from '../../harness/index.js';
import { formatIssues, locateInYaml } from '../../simulator/index.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import { assertWritableDir } from '../output-dir.js';
import { referenceConfig, referenceLauncher } from '../reference-launcher.js';

/** Where the router under test comes from, overriding the scenario's `router` section. */
export interface RouterChoice {
  routerCmd?: string;
  routerUrl?: string;
}

/** Options of `throttlelab run`. */
export interface RunCommandOptions extends RouterChoice {
  scenario: string;
  seed?: number;
  out?: string;
  simPort?: number;
}

/** Prepares a scenario for a run: loaded, with a load section, its router choice valid. */
export async function prepareRun(
  file: string,
  choice: RouterChoice,
  io: Io,
): Promise<{ scenario: Scenario; text: string; launcher: RouterLauncher } | undefined> {
  const loaded = await loadRunScenarioFile(file, io.env);
  if (!loaded.ok) {
    io.err(loaded.report);
    return undefined;
  }
  const { scenario, text } = loaded;
  if (!scenario.load) {
    io.err(
      formatIssues(
        file,
        locateInYaml(text, [
          {
            code: 'SCENARIO_MISSING_FIELD',
            path: [],
            message: 'throttlelab run needs a "load" section (mode, duration, rate or connections, requests)',
          },
        ]),
      ),
    );
    return undefined;
  }
  if (choice.routerCmd)
    return {
      scenario,
      text,
      launcher: (ctx) =>
        launchCommand(
          ctx,
          { command: choice.routerCmd!, env: {}, readyPath: '/v1/models', startTimeout: 30_000 },
          io.env,
        ),
    };
  if (choice.routerUrl) return { scenario, text, launcher: () => launchUrl(choice.routerUrl!) };
  const r = scenario.router;
  if (r.kind === 'command') return { scenario, text, launcher: (ctx) => launchCommand(ctx, r, io.env) };
  if (r.kind === 'url') return { scenario, text, launcher: () => launchUrl(r.url) };
  const checked = referenceConfig(scenario, {});
  if (!checked.ok) {
    io.err(formatIssues(file, locateInYaml(text, checked.issues)));
    return undefined;
  }
  return { scenario, text, launcher: referenceLauncher(scenario) };
}

/** A progress line: elapsed time, request rate and outcomes so far. */
export function progressLine(p: LoadProgress, totalMs: number): string {
  const rate = p.elapsedMs > 0 ? (p.done / p.elapsedMs) * 1000 : 0;
  const outcomes = Object.entries(p.byStatus)
    .sort()
    .map(([k, v]) => `${k}: ${v}`)
    .join('  ');
  return `  ${(Math.min(p.elapsedMs, totalMs) / 1000).toFixed(0).padStart(3)} s / ${totalMs / 1000} s  ${rate.toFixed(0).padStart(5)} req/s  in flight ${p.inFlight}  ${outcomes}${p.dropped ? `  not judged: ${p.dropped}` : ''}`;
}

/** Runs one prepared scenario, showing progress; returns its report. */
export async function executeRun(
  prepared: { scenario: Scenario; text: string; launcher: RouterLauncher },
  file: string,
  seed: number,
  io: Io,
  simPort?: number,
): Promise<Report> {
  const total = prepared.scenario.load!.duration;
  let lastPrinted = 0;
  const data = await runScenario({
    scenario: prepared.scenario,
    scenarioText: prepared.text,
    scenarioFile: file,
    seed,
    launcher: prepared.launcher,
    env: io.env,
    simPort,
    signal: io.stop,
    onProgress: (p) => {
      if (io.isTTY) io.status(progressLine(p, total));
      else if (p.elapsedMs - lastPrinted >= 5000) {
        lastPrinted = p.elapsedMs;
        io.err(progressLine(p, total));
      }
    },
  });
  io.status('');
  return buildReport(data);
}

/** Runs a scenario against a router under load, judges it, writes the reports; exit 0 pass, 1 fail, 2 bad input. */
export async function run(options: RunCommandOptions, io: Io): Promise<ExitCode> {
  const prepared = await prepareRun(options.scenario, options, io);
  if (!prepared) return EXIT.BAD_INPUT;
  await assertWritableDir(options.out ?? 'reports');
  const seed = options.seed ?? prepared.scenario.seed ?? io.randomSeed();
  io.out(`throttlelab run: scenario "${prepared.scenario.name}" (seed ${seed})`);
  const report = await executeRun(prepared, options.scenario, seed, io, options.simPort);
  io.out(renderVerdictTable(report));
  const dir = options.out ?? join('reports', `${report.scenario.name}-${report.startedAt.replace(/[:.]/g, '-')}`);
  const paths = await writeReportFolder(dir, [report]);
  io.out(`report: ${paths.html} (also report.json, junit.xml, summary.md in ${dir})`);
  return report.verdict === 'pass' ? EXIT.OK : EXIT.CHECK_FAILED;
}
