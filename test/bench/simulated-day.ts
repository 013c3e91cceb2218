// The whole day in the life as `throttlelab run scenarios/day-in-the-life.yaml --time simulated`
// does it, phase by phase: the simulated run and its judging, the report, the report folder
// (HTML, JSON, JUnit, summary) and the evidence files (ledger.jsonl, outcomes.jsonl). Prints wall
// time, CPU time, the live heap after each phase (a forced GC) and the peak RSS so far, with the
// load average. Run with a heap cap to show the memory is bounded:
//   npm run bench:simulated-day -- [--out /tmp/day] [--scenario scenarios/day-in-the-life.yaml]
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildReport, loadRunScenarioFile, runSimulatedScenario, writeReportFolder } from '../../harness/index.js';
import { simulatedReferenceLauncher } from '../../bin/reference-launcher.js';
import { writeEvidenceFiles } from '../../bin/evidence-files.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const file = args.get('scenario') ?? join(import.meta.dirname, '../../scenarios/day-in-the-life.yaml');
const out = args.get('out') ?? (await mkdtemp(join(tmpdir(), 'tl-day-')));
const gc = (globalThis as { gc?: () => void }).gc;

const loaded = await loadRunScenarioFile(file, {});
if (!loaded.ok) throw new Error(loaded.report);
const peakMiB = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
console.log(`machine: ${cpus().length} × ${cpus()[0]?.model.trim()}; node ${process.version}; load average ${load()}`);

const start = performance.now();
const startCpu = process.cpuUsage();
let t = start;
let c = startCpu;
const phase = (name: string) => {
  const now = performance.now();
  const cpu = process.cpuUsage(c);
  gc?.();
  const live = process.memoryUsage().heapUsed / 2 ** 20;
  console.log(
    `${name.padEnd(10)} wall ${((now - t) / 1000).toFixed(1)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s, live heap ${gc ? `${live.toFixed(0)} MiB` : 'n/a (run with --expose-gc)'}, peak RSS so far ${peakMiB().toFixed(0)} MiB, load average ${load()}`,
  );
  t = performance.now();
  c = process.cpuUsage();
};

const data = await runSimulatedScenario({
  scenario: loaded.scenario,
  scenarioText: loaded.text,
  scenarioFile: file,
  seed: loaded.scenario.seed ?? 1,
  launcher: simulatedReferenceLauncher(loaded.scenario),
  wallStartedAt: Date.now(),
});
phase('run+judge');
const report = buildReport(data);
phase('report');
await writeReportFolder(out, [report]);
phase('folder');
await writeEvidenceFiles(out, { rows: data.rows, outcomes: data.outcomes });
phase('evidence');
const wallS = (performance.now() - start) / 1000;
const cpu = process.cpuUsage(startCpu);
const n = data.outcomes.length;
console.log(
  `whole day: ${n} requests, ${data.rows.length} attempts, ${(data.simulated.simulatedMs / 3_600_000).toFixed(2)} h simulated, verdict ${data.verdict}; wall ${wallS.toFixed(1)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s, ${(n / wallS).toFixed(0)} simulated requests per wall second end to end (${(n / ((cpu.user + cpu.system) / 1e6)).toFixed(0)} per CPU second), peak RSS ${peakMiB().toFixed(0)} MiB`,
);
console.log(`faults: ${data.faults?.map((f) => `${f.id} matched ${f.matched}`).join(', ')}`);
if (!args.has('out')) await rm(out, { recursive: true, force: true });
