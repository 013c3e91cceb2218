// What simulated time costs in wall time: the conformance pack, the quickstart scenario and
// (a slice of, or all of) the day in the life, each run in process on one discrete-event clock
// with the reference router. Prints wall time, CPU time, simulated time, simulated requests per
// wall second and peak RSS; medians over rounds where there are rounds.
//   npm run bench:simulated -- [--rounds 3] [--day-hours 1]   (--day-hours 24: the whole day)
import { readdirSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { loadRunScenarioFile, runSimulatedScenario, type RunScenario } from '../../harness/index.js';
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

// The quickstart scenario: simulated requests per wall second.
const qs = await load(join(ROOT, 'scenarios/quickstart.yaml'));
await once('quickstart', qs.scenario, qs.text);
const q = [];
for (let r = 0; r < rounds; r++) q.push(await once('quickstart', qs.scenario, qs.text));
console.log(
  `quickstart (${q[0]!.requests} requests, ${(q[0]!.simMs / 1000).toFixed(1)} s simulated): wall ${median(q.map((x) => x.wallMs)).toFixed(0)} ms, ${median(q.map((x) => x.requests / (x.wallMs / 1000))).toFixed(0)} simulated requests per wall second, ${median(q.map((x) => x.requests / (x.cpuMs / 1000))).toFixed(0)} per CPU second (median of ${rounds})`,
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
