// Where a simulated run's CPU goes, per request, by component. Plays one scenario (quickstart by
// default) in simulated time with the reference router: warm-up runs, then `--runs` runs timed
// without a profiler (CPU per request, the figure to trust), then as many under the V8 sampling
// profiler (node:inspector, in process), whose self time is grouped by component and scaled to
// the unprofiled CPU per request. `--cpuprofile <file>` also writes the profile for DevTools.
// `--built` plays the compiled code of `dist/` (what the CLI runs; `npm run build` first) instead
// of the sources through tsx, whose helpers (`__name` on every function made) cost some of their own.
//   npx tsx test/bench/simulated-profile.ts [scenario.yaml] [--runs 20] [--built] [--cpuprofile out.cpuprofile]
import { writeFileSync } from 'node:fs';
import { Session, type Profiler } from 'node:inspector/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type * as HarnessApi from '../../harness/index.js';
import type * as LauncherApi from '../../bin/reference-launcher.js';

const argv = process.argv.slice(2);
const opt = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const runs = Number(opt('runs') ?? 20);
const built = argv.includes('--built');
const from = built ? '../../dist/' : '../../';
const { loadRunScenarioFile, runSimulatedScenario } = (await import(`${from}harness/index.js`)) as typeof HarnessApi;
const { simulatedReferenceLauncher } = (await import(`${from}bin/reference-launcher.js`)) as typeof LauncherApi;
const file =
  argv.find((a, i) => !a.startsWith('--') && !argv[i - 1]?.startsWith('--')) ??
  join(import.meta.dirname, '../../scenarios/quickstart.yaml');
const loaded = await loadRunScenarioFile(file, {});
if (!loaded.ok) throw new Error(loaded.report);
const { scenario, text } = loaded;

async function play(count: number): Promise<{ cpuMs: number; requests: number }> {
  const cpu = process.cpuUsage();
  let requests = 0;
  for (let i = 0; i < count; i++) {
    const d = await runSimulatedScenario({
      scenario,
      scenarioText: text,
      scenarioFile: file,
      seed: scenario.seed ?? 1,
      launcher: simulatedReferenceLauncher(scenario),
    });
    requests += d.outcomes.length;
  }
  const u = process.cpuUsage(cpu);
  return { cpuMs: (u.user + u.system) / 1000, requests };
}

const builtins = new Map<string, number>();
// Components by source path (first match wins), then V8's own rows.
const COMPONENTS: Array<[string, RegExp]> = [
  ['simulator: prompt token counting (o200k, gpt-tokenizer)', /gpt-tokenizer|simulator\/engine\/tokens\./],
  ['faker (vocabularies)', /@faker-js/],
  ['simulator: engine, vendors, quotas, ledger', /\/simulator\//],
  ['router: attempts and vendor adapters (build, parse, SSE relay)', /router\/(adapters|engine\/attempt)/],
  ['router: routing, scoring, breakers, capacity, server', /\/router\//],
  ['in-process transport', /bin\/in-process-transport/],
  ['harness: request plan (prompts, bodies)', /harness\/load\/request-plan/],
  ['harness: load generator and client outcomes', /harness\/(sim|load)\//],
  ['harness: judging (checks, report data)', /\/harness\//],
  [
    'Node: AbortSignal, events, timers, encoding',
    /node:internal\/(abort_controller|event_target|timers|encoding|webstreams)/,
  ],
  ['Node and modules: everything else', /^node:|node_modules/],
];
function component(frame: Profiler.ProfileNode['callFrame']): string {
  const url = frame.url;
  // The profiler's own work (building the profile when it stops) is no part of the run.
  if (url === '' && frame.functionName === 'dispatch') return 'idle';
  if (url === '') {
    if (frame.functionName === '(garbage collector)') return 'garbage collection';
    if (frame.functionName === '(idle)') return 'idle';
    if (frame.functionName === '(program)') return 'V8 (program: compiling, runtime)';
    builtins.set(frame.functionName, (builtins.get(frame.functionName) ?? 0) + 1);
    return 'V8 builtins called from JavaScript';
  }
  for (const [name, re] of COMPONENTS) if (re.test(url)) return name;
  return 'other';
}

const cpuCount = cpus().length;
console.log(
  `${scenario.name} (${built ? 'dist/' : 'sources through tsx'}): ${runs} runs timed, then ${runs} profiled; ${cpuCount} CPUs, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
await play(3);
const plain = await play(runs);
const perRequestUs = (plain.cpuMs * 1000) / plain.requests;
console.log(`unprofiled: ${perRequestUs.toFixed(0)} µs CPU per request (${plain.requests} requests, whole runs)`);

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 200 });
await session.post('Profiler.start');
await play(runs);
const { profile } = await session.post('Profiler.stop');
session.disconnect();
const out = opt('cpuprofile');
if (out) writeFileSync(out, JSON.stringify(profile));

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<string, number>();
let total = 0;
const deltas = profile.timeDeltas ?? [];
for (let i = 0; i < (profile.samples ?? []).length; i++) {
  const node = byId.get(profile.samples![i]!)!;
  const dt = deltas[i] ?? 0;
  const c = component(node.callFrame);
  self.set(c, (self.get(c) ?? 0) + dt);
  total += dt;
}
const busy = total - (self.get('idle') ?? 0);
console.log(`\n| component | share of CPU samples | µs per request |\n|---|---|---|`);
for (const [name, t] of [...self].filter(([n]) => n !== 'idle').sort((a, b) => b[1] - a[1])) {
  console.log(`| ${name} | ${((100 * t) / busy).toFixed(1)} % | ${((perRequestUs * t) / busy).toFixed(0)} |`);
}
console.log(`| **all** | 100 % | **${perRequestUs.toFixed(0)}** |`);
const topBuiltins = [...builtins].sort((a, b) => b[1] - a[1]).slice(0, 6);
console.log(`(V8 builtins, most sampled first: ${topBuiltins.map(([n]) => n || '(anonymous)').join(', ')})`);
console.log(
  `(idle while profiling, and the profiler stopping: ${((100 * (self.get('idle') ?? 0)) / total).toFixed(1)} % of samples)`,
);
