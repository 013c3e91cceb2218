// What simulated time costs in wall time: the conformance pack, the quickstart scenario and
// (a slice of, or all of) the day in the life, each run in process on one discrete-event clock
// with the reference router. Prints wall time, CPU time, simulated time, simulated requests per
// wall second and peak RSS; medians over rounds where there are rounds. Quickstart is shown per
// run and by phase (setup, load, judging): its load phase is the steady state, per request.
//   npm run bench:simulated -- [--rounds 3] [--day-hours 1]   (--day-hours 24: the whole day)
import { readdirSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import {
  createSimClock,
  loadRunScenarioFile,
  runSimulatedScenario,
  type RunScenario,
  type SimulatedRouterLauncher,
} from '../../harness/index.js';
import { simulatedReferenceLauncher } from '../../bin/reference-launcher.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const rounds = Number(args.get('rounds') ?? 3);
const dayHours = Number(args.get('day-hours') ?? 1);
const ROOT = join(import.meta.dirname, '../..');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function load(file: string) {
  const l = await loadRunScenarioFile(file, {});
  if (!l.ok) throw new Error(l.report);
  return l;
}

async function once(file: string, scenario: RunScenario, text: string) {
  const cpu = process.cpuUsage();
  const t = performance.now();
  const d = await runSimulatedScenario({
    scenario,
    scenarioText: text,
    scenarioFile: file,
    seed: scenario.seed ?? 1,
    launcher: simulatedReferenceLauncher(scenario),
  });
  const wallMs = performance.now() - t;
  const u = process.cpuUsage(cpu);
  return {
    wallMs,
    cpuMs: (u.user + u.system) / 1000,
    simMs: d.simulated.simulatedMs,
    requests: d.outcomes.length,
    attempts: d.rows.length,
    verdict: d.verdict,
  };
}

let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);

console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}; node ${process.version}; sources through tsx`,
);

// The conformance pack, as `conform --time simulated` runs it (after one warm-up pass).
const pack = readdirSync(join(ROOT, 'scenarios/conformance'))
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((f) => join(ROOT, 'scenarios/conformance', f));
const loaded = await Promise.all(pack.map(load));
const packRounds: Array<{ wallMs: number; cpuMs: number; simMs: number; requests: number; pass: number }> = [];
for (let r = 0; r <= rounds; r++) {
  const sum = { wallMs: 0, cpuMs: 0, simMs: 0, requests: 0, pass: 0 };
  for (let i = 0; i < pack.length; i++) {
    const x = await once(pack[i]!, loaded[i]!.scenario, loaded[i]!.text);
    sum.wallMs += x.wallMs;
    sum.cpuMs += x.cpuMs;
    sum.simMs += x.simMs;
    sum.requests += x.requests;
    if (x.verdict === 'pass') sum.pass++;
  }
  if (r > 0) packRounds.push(sum);
}
const p = packRounds[0]!;
console.log(
  `conformance pack (${pack.length} scenarios, ${p.requests} requests, ${(p.simMs / 1000).toFixed(1)} s simulated, ${p.pass} pass): wall ${(median(packRounds.map((x) => x.wallMs)) / 1000).toFixed(2)} s, CPU ${(median(packRounds.map((x) => x.cpuMs)) / 1000).toFixed(2)} s (median of ${rounds}; rounds ${packRounds.map((x) => (x.wallMs / 1000).toFixed(2)).join(', ')} s)`,
);

// The quickstart scenario: simulated requests per wall second, per run as `run --time simulated`
// plays it (setup and judging included).
const qs = await load(join(ROOT, 'scenarios/quickstart.yaml'));
await once('quickstart', qs.scenario, qs.text);
const q = [];
for (let r = 0; r < rounds; r++) q.push(await once('quickstart', qs.scenario, qs.text));
console.log(
  `quickstart per run (${q[0]!.requests} requests, ${(q[0]!.simMs / 1000).toFixed(1)} s simulated): wall ${median(q.map((x) => x.wallMs)).toFixed(0)} ms, ${median(q.map((x) => x.requests / (x.wallMs / 1000))).toFixed(0)} simulated requests per wall second, ${median(q.map((x) => x.requests / (x.cpuMs / 1000))).toFixed(0)} per CPU second (median of ${rounds})`,
);

// The same runs split in phases, to show the per-request cost apart from the per-run one. Setup:
// from the call to the first simulated event (simulator, router, request planner); load: from
// there to the router's stop, which the run calls once the load and its stragglers are over (the
// steady state: only per-request work, every request of the scenario, nothing else); judging:
// from the router's stop to the run's data (checks and report data). Marks taken at three
// points only, so the measuring costs nothing per request.
interface Mark {
  wall: number;
  cpu: number;
}
const mark = (): Mark => {
  const u = process.cpuUsage();
  return { wall: performance.now(), cpu: (u.user + u.system) / 1000 };
};
async function phased(scenario: RunScenario, text: string) {
  const at: Mark[] = [mark()];
  const clock = createSimClock();
  const step = clock.step;
  let started = false;
  clock.step = () => {
    if (!started) {
      started = true;
      at.push(mark());
    }
    return step();
  };
  const reference = simulatedReferenceLauncher(scenario);
  const launcher: SimulatedRouterLauncher = async (ctx) => {
    const router = await reference(ctx);
    return {
      ...router,
      stop: () => {
        at.push(mark());
        return router.stop();
      },
    };
  };
  const d = await runSimulatedScenario({
    scenario,
    scenarioText: text,
    scenarioFile: 'quickstart',
    seed: scenario.seed ?? 1,
    launcher,
    clock,
  });
  at.push(mark());
  const span = (i: number) => ({ wallMs: at[i + 1]!.wall - at[i]!.wall, cpuMs: at[i + 1]!.cpu - at[i]!.cpu });
  return { setup: span(0), load: span(1), judge: span(2), requests: d.outcomes.length };
}
const phases: Array<Awaited<ReturnType<typeof phased>>> = [];
for (let r = 0; r < Math.max(rounds, 5); r++) phases.push(await phased(qs.scenario, qs.text));
const n = phases[0]!.requests;
const med = (k: 'setup' | 'load' | 'judge', m: 'wallMs' | 'cpuMs') => median(phases.map((x) => x[k][m]));
console.log(
  `quickstart by phase (median of ${phases.length} warm runs): setup ${med('setup', 'wallMs').toFixed(1)} ms wall, ${med('setup', 'cpuMs').toFixed(1)} ms CPU; load ${med('load', 'wallMs').toFixed(1)} ms wall, ${med('load', 'cpuMs').toFixed(1)} ms CPU; judging ${med('judge', 'wallMs').toFixed(1)} ms wall, ${med('judge', 'cpuMs').toFixed(1)} ms CPU`,
);
console.log(
  `quickstart steady state (load phase only, ${n} requests): ${((med('load', 'cpuMs') * 1000) / n).toFixed(0)} µs CPU per request, ${median(phases.map((x) => n / (x.load.wallMs / 1000))).toFixed(0)} simulated requests per wall second, ${median(phases.map((x) => n / (x.load.cpuMs / 1000))).toFixed(0)} per CPU second`,
);

// The day in the life: the first `dayHours` hours of its load (all 24: the whole scenario).
const day = await load(join(ROOT, 'scenarios/day-in-the-life.yaml'));
const dayLoad = day.scenario.load!;
const hours = Math.max(1, Math.min(24, dayHours));
const sliced: RunScenario = {
  ...day.scenario,
  load: { ...dayLoad, duration: hours * 3_600_000, ramp: dayLoad.ramp?.slice(0, hours) },
};
peak = 0;
const d = await once('day-in-the-life', sliced, day.text);
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
console.log(
  `day-in-the-life, first ${hours} h (${d.requests} requests, ${d.attempts} attempts, ${(d.simMs / 3_600_000).toFixed(2)} h simulated, verdict ${d.verdict}): wall ${(d.wallMs / 1000).toFixed(1)} s, CPU ${(d.cpuMs / 1000).toFixed(1)} s, ${(d.requests / (d.wallMs / 1000)).toFixed(0)} simulated requests per wall second, peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB`,
);
