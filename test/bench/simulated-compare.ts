// Two builds of throttlelab side by side on quickstart in simulated time (the reference router):
// rounds alternate a child process per build, each playing warm-up runs then `--runs` timed runs
// of the compiled code in its `dist/` (`npm run build` in both first). Per build: median CPU and
// wall per run, median CPU of the load phase alone (per request: the steady state), and the
// ratios of the two builds' medians. The load average is printed before and after.
//   npx tsx test/bench/simulated-compare.ts --before /path/to/main/worktree [--after .] [--rounds 5] [--runs 10]
import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const opt = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};

interface Figures {
  requests: number;
  runCpuMs: number;
  runWallMs: number;
  loadCpuMs: number;
  loadWallMs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

if (opt('child')) {
  // In the child: one build's code, warm, runs timed with marks at the load's first event and end.
  const root = resolve(opt('child')!);
  const runs = Number(opt('runs') ?? 10);
  const h = await import(pathToFileURL(`${root}/dist/harness/index.js`).href);
  const { simulatedReferenceLauncher } = await import(pathToFileURL(`${root}/dist/bin/reference-launcher.js`).href);
  const file = `${root}/scenarios/quickstart.yaml`;
  const loaded = await h.loadRunScenarioFile(file, {});
  if (!loaded.ok) throw new Error(loaded.report);
  const cpuNow = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const once = async () => {
    const marks: number[][] = [[performance.now(), cpuNow()]];
    const clock = h.createSimClock();
    const step = clock.step;
    let started = false;
    clock.step = () => {
      if (!started) {
        started = true;
        marks.push([performance.now(), cpuNow()]);
      }
      return step();
    };
    const reference = simulatedReferenceLauncher(loaded.scenario);
    const d = await h.runSimulatedScenario({
      scenario: loaded.scenario,
      scenarioText: loaded.text,
      scenarioFile: file,
      seed: loaded.scenario.seed ?? 1,
      clock,
      launcher: async (ctx: unknown) => {
        const router = await reference(ctx);
        return {
          ...router,
          stop: () => {
            marks.push([performance.now(), cpuNow()]);
            return router.stop();
          },
        };
      },
    });
    marks.push([performance.now(), cpuNow()]);
    return {
      requests: d.outcomes.length as number,
      runWallMs: marks[3]![0]! - marks[0]![0]!,
      runCpuMs: marks[3]![1]! - marks[0]![1]!,
      loadWallMs: marks[2]![0]! - marks[1]![0]!,
      loadCpuMs: marks[2]![1]! - marks[1]![1]!,
    };
  };
  for (let i = 0; i < 3; i++) await once();
  const xs: Figures[] = [];
  for (let i = 0; i < runs; i++) xs.push(await once());
  const m = (k: keyof Figures) => median(xs.map((x) => x[k]));
  const out: Figures = {
    requests: xs[0]!.requests,
    runCpuMs: m('runCpuMs'),
    runWallMs: m('runWallMs'),
    loadCpuMs: m('loadCpuMs'),
    loadWallMs: m('loadWallMs'),
  };
  console.log(JSON.stringify(out));
} else {
  const builds = { before: resolve(opt('before') ?? '.'), after: resolve(opt('after') ?? '.') };
  const rounds = Number(opt('rounds') ?? 5);
  const runs = opt('runs') ?? '10';
  const load = () =>
    loadavg()
      .map((x) => x.toFixed(1))
      .join(' ');
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model.trim()}; node ${process.version}; load average ${load()}`,
  );
  console.log(
    `before: ${builds.before}\nafter:  ${builds.after}\nquickstart, ${rounds} rounds alternating, ${runs} timed runs per build per round (medians)`,
  );
  const got: Record<keyof typeof builds, Figures[]> = { before: [], after: [] };
  for (let r = 0; r < rounds; r++) {
    const order = (r % 2 === 0 ? ['before', 'after'] : ['after', 'before']) as Array<keyof typeof builds>;
    for (const b of order) {
      const text = execFileSync(process.execPath, [
        '--import',
        'tsx',
        import.meta.filename,
        '--child',
        builds[b],
        '--runs',
        runs,
      ]).toString();
      got[b].push(JSON.parse(text.trim().split('\n').at(-1)!) as Figures);
    }
    const [a, b] = [got.before.at(-1)!, got.after.at(-1)!];
    console.log(
      `round ${r + 1}: run CPU ${a.runCpuMs.toFixed(1)} → ${b.runCpuMs.toFixed(1)} ms (${(b.runCpuMs / a.runCpuMs).toFixed(2)}×), load-phase CPU ${a.loadCpuMs.toFixed(1)} → ${b.loadCpuMs.toFixed(1)} ms (${(b.loadCpuMs / a.loadCpuMs).toFixed(2)}×); load average ${load()}`,
    );
  }
  const row = (name: keyof typeof builds) => {
    const xs = got[name];
    const n = xs[0]!.requests;
    const m = (k: keyof Figures) => median(xs.map((x) => x[k]));
    return {
      n,
      runCpu: m('runCpuMs'),
      runWall: m('runWallMs'),
      loadCpu: m('loadCpuMs'),
      loadWall: m('loadWallMs'),
      perRequestUs: (m('loadCpuMs') * 1000) / n,
      perWallSecond: n / (m('runWallMs') / 1000),
      perCpuSecond: n / (m('runCpuMs') / 1000),
      steadyPerCpuSecond: n / (m('loadCpuMs') / 1000),
    };
  };
  const [a, b] = [row('before'), row('after')];
  console.log(
    `\n| build | run wall | run CPU | load-phase CPU | µs CPU per request (load phase) | requests per wall s (per CPU s) per run | per CPU s, load phase |`,
  );
  console.log(`|---|---|---|---|---|---|---|`);
  for (const [name, x] of [
    ['before', a],
    ['after', b],
  ] as const) {
    console.log(
      `| ${name} | ${x.runWall.toFixed(1)} ms | ${x.runCpu.toFixed(1)} ms | ${x.loadCpu.toFixed(1)} ms | ${x.perRequestUs.toFixed(0)} | ${x.perWallSecond.toFixed(0)} (${x.perCpuSecond.toFixed(0)}) | ${x.steadyPerCpuSecond.toFixed(0)} |`,
    );
  }
  console.log(
    `| after / before | ${(b.runWall / a.runWall).toFixed(2)}× | ${(b.runCpu / a.runCpu).toFixed(2)}× | ${(b.loadCpu / a.loadCpu).toFixed(2)}× | | | |`,
  );
  const ratios = got.after.map((x, i) => x.runCpuMs / got.before[i]!.runCpuMs);
  console.log(
    `per-round run CPU ratios (after / before): ${ratios.map((x) => x.toFixed(2)).join(', ')}; median ${median(ratios).toFixed(2)}×`,
  );
  console.log(`load average at the end: ${load()}`);
}
