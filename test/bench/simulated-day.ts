// The whole day in the life as `throttlelab run scenarios/day-in-the-life.yaml --time simulated`
// does it, phase by phase: the simulated run and its judging, the report, the report folder
// (HTML, JSON, JUnit, summary) and the evidence files (ledger.jsonl, outcomes.jsonl). Prints wall
// time, CPU time, the live heap after each phase (a forced GC) and the peak RSS so far, with the
// load average. Run with a heap cap to show the memory is bounded:
//   npm run bench:simulated-day -- [--out /tmp/day] [--scenario scenarios/day-in-the-life.yaml] [--day-hours 6] [--dist 1]
// `--day-hours N` plays the first N hours of the day's load (its ramp cut there), to show how
// memory grows with the run. The run and its judging are told apart when the router stops (the
// load is over): the peak RSS is read and reset there (Linux's clear_refs). `--judging-profile F`
// writes a sampling heap profile of judging, garbage included, to F (open it in Chrome DevTools);
// `--run-profile F` one of what the run still holds when its load is over.
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
// `--dist 1`: the built code (`npm run build` first), as the CLI runs it, without tsx's compiled sources in the heap.
const from = args.has('dist') ? '../../dist/' : '../../';
const { buildReport, loadRunScenarioFile, runSimulatedScenario, writeReportFolder } = (await import(
  `${from}harness/index.js`
)) as typeof import('../../harness/index.js');
const { simulatedReferenceLauncher } = (await import(
  `${from}bin/reference-launcher.js`
)) as typeof import('../../bin/reference-launcher.js');
const { writeEvidenceFiles } = (await import(
  `${from}bin/evidence-files.js`
)) as typeof import('../../bin/evidence-files.js');
const file = args.get('scenario') ?? join(import.meta.dirname, '../../scenarios/day-in-the-life.yaml');
const out = args.get('out') ?? (await mkdtemp(join(tmpdir(), 'tl-day-')));
const gc = (globalThis as { gc?: () => void }).gc;

const loaded = await loadRunScenarioFile(file, {});
if (!loaded.ok) throw new Error(loaded.report);
const dayHours = args.get('day-hours');
if (dayHours !== undefined) {
  const hours = Math.max(1, Math.min(24, Number(dayHours)));
  const dayLoad = loaded.scenario.load!;
  loaded.scenario = {
    ...loaded.scenario,
    load: { ...dayLoad, duration: hours * 3_600_000, ramp: dayLoad.ramp?.slice(0, hours) },
  };
}
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
  const m = process.memoryUsage();
  const mib = (v: number) => `${(v / 2 ** 20).toFixed(0)} MiB`;
  console.log(
    `${name.padEnd(10)} wall ${((now - t) / 1000).toFixed(1)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s, live heap ${gc ? mib(m.heapUsed) : 'n/a (run with --expose-gc)'}, array buffers ${mib(m.arrayBuffers)}, RSS ${mib(m.rss)}, peak RSS ${peakMiB().toFixed(0)} MiB, load average ${load()}`,
  );
  t = performance.now();
  c = process.cpuUsage();
};

const launch = simulatedReferenceLauncher(loaded.scenario);
const profileFile = args.get('judging-profile');
const runProfileFile = args.get('run-profile');
const session = profileFile || runProfileFile ? new Session() : undefined;
if (runProfileFile) {
  // What the run still holds at its end, by where it was allocated (garbage left out).
  session!.connect();
  session!.post('HeapProfiler.startSampling', { samplingInterval: 4096 });
}
const data = await runSimulatedScenario({
  scenario: loaded.scenario,
  scenarioText: loaded.text,
  scenarioFile: file,
  seed: loaded.scenario.seed ?? 1,
  // The router stops when the load is over: the run's figures are taken there, before judging.
  launcher: async (ctx) => {
    const router = await launch(ctx);
    return {
      ...router,
      stop: async () => {
        await router.stop();
        phase('run');
        writeFileSync('/proc/self/clear_refs', '5');
        if (runProfileFile)
          session!.post('HeapProfiler.stopSampling', (error, r) => {
            if (error) throw error;
            writeFileSync(runProfileFile, JSON.stringify(r.profile));
          });
        else if (session) {
          session.connect();
          session.post('HeapProfiler.startSampling', {
            samplingInterval: 4096,
            includeObjectsCollectedByMajorGC: true,
            includeObjectsCollectedByMinorGC: true,
          });
        }
      },
    };
  },
  wallStartedAt: Date.now(),
});
if (profileFile)
  session!.post('HeapProfiler.stopSampling', (error, r) => {
    if (error) throw error;
    writeFileSync(profileFile!, JSON.stringify(r.profile));
  });
phase('judge');
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
