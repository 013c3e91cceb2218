// How fast does `throttlelab explore` sweep the conformance pack, and what do its workers buy?
// One seed-run = the whole pack (16 scenarios) at one seed, the reference router in simulated time.
// Side by side in one process: --side seeds with 1 worker, the same seeds with --workers workers
// (default: every core), then --seeds seeds with every core. Issue 22's target: 100 seed-runs in
// at most 2 minutes on a 2-core machine. Prints the load average beside each figure: other work on
// the machine slows every figure, and the ratio less than the times.
// The built CLI is measured (its workers are dist/bin/explore-worker.js), not the sources through tsx.
//   npm run bench:explore -- [--side 10] [--seeds 100] [--workers N]
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import type { Io } from '../../bin/io.js';
import { formatSeedRange, loadRunScenarioFile } from '../../harness/index.js';

const dist = join(import.meta.dirname, '../../dist/bin');
const { sweep } = (await import(join(dist, 'explore-sweep.js'))) as typeof import('../../bin/explore-sweep.js');
const { scenarioFiles } = (await import(
  join(dist, 'commands/explore.js')
)) as typeof import('../../bin/commands/explore.js');

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const side = Number(args.get('side') ?? 10);
const total = Number(args.get('seeds') ?? 100);
const cores = availableParallelism();
const workers = Number(args.get('workers') ?? cores);

const io: Io = {
  out: (l) => console.log(l),
  err: (l) => console.error(l),
  env: process.env,
  stop: new AbortController().signal,
  randomSeed: () => 1,
  isTTY: false,
  status: () => {},
};

const files = await scenarioFiles([join(import.meta.dirname, '../../scenarios/conformance')]);
const loadMs = new Map<string, number>();
for (const f of files) {
  const loaded = await loadRunScenarioFile(f, process.env);
  if (!loaded.ok) throw new Error(loaded.report);
  loadMs.set(f, loaded.scenario.load!.duration);
}

async function measure(seedCount: number, w: number) {
  const seeds = Array.from({ length: seedCount }, (_, i) => i + 1);
  const before = loadavg()[0]!;
  const started = performance.now();
  const { summary, runs } = await sweep(
    { files, seeds, router: { kind: 'reference', time: 'simulated' }, workers: w, loadMs, jobTimeoutMs: () => 300_000 },
    io,
  );
  const wallS = (performance.now() - started) / 1000;
  const cpuS = runs.reduce((s, r) => s + r.wallMs, 0) / 1000;
  const row = {
    seeds: formatSeedRange(seeds),
    workers: w,
    wallS: Number(wallS.toFixed(1)),
    perSeedRunS: Number((wallS / seedCount).toFixed(2)),
    jobWallSumS: Number(cpuS.toFixed(1)),
    verdict: `${summary.totals.pass} pass, ${summary.totals.fail} fail, ${summary.totals.inconclusive} inconcl., ${summary.totals.error} error`,
    load1: `${before.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`,
  };
  console.log(JSON.stringify(row));
  return row;
}

console.log(
  `explore bench: ${files.length} scenarios per seed-run, ${cores} cores, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
const one = await measure(side, 1);
const many = await measure(side, workers);
console.log(`speed-up of ${workers} workers over 1 on ${side} seed-runs: ${(one.wallS / many.wallS).toFixed(2)}×`);
if (total > 0) {
  const full = await measure(total, workers);
  const ok = full.wallS <= 120 && total >= 100;
  console.log(
    `${total} seed-runs with ${workers} workers in ${full.wallS} s (${(full.wallS / total).toFixed(2)} s each); issue 22's target, 100 in 120 s: ${total >= 100 ? (ok ? 'met' : 'NOT met') : 'not measured (fewer than 100 seeds)'}`,
  );
}
