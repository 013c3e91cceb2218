// Does the reference router pass the conformance pack on a busy machine? Runs `throttlelab conform`
// (wall clock, the reference router) N times in a row beside H CPU-bound processes, and prints each
// scenario's verdicts over the runs: FAIL must be 0; INCONCLUSIVE is allowed, with its reason.
//   npm run build && npm run bench:pack-under-load -- [--runs 20] [--hogs 4] [--only 0] [--seed N]
// Bounded: each conform run is killed after --timeout seconds (default 900), the hogs at the end.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const runs = Number(args.get('runs') ?? 20);
const hogCount = Number(args.get('hogs') ?? 4);
const timeoutS = Number(args.get('timeout') ?? 900);
const only = args.get('only');
const seed = args.get('seed');
const cli = join(import.meta.dirname, '../../dist/bin/throttlelab.js');

interface Verdicts {
  scenario: string;
  verdict: string;
  failed: string[];
  inconclusive: string[];
}

const hogs = Array.from({ length: hogCount }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
const stopHogs = () => hogs.forEach((h) => h.kill('SIGKILL'));
process.on('exit', stopHogs);

const byScenario = new Map<string, Verdicts[]>();
const durations: number[] = [];
const loads: number[] = [];
try {
  for (let i = 0; i < runs; i++) {
    const out = mkdtempSync(join(tmpdir(), 'tl-pack-'));
    const started = performance.now();
    const r = spawnSync(
      process.execPath,
      [cli, 'conform', '--out', out, ...(only ? ['--only', only] : []), ...(seed ? ['--seed', seed] : [])],
      { encoding: 'utf8', timeout: timeoutS * 1000 },
    );
    durations.push((performance.now() - started) / 1000);
    loads.push(loadavg()[0]!);
    let reports: Array<{
      scenario: { name: string };
      verdict: string;
      inconclusive?: string[];
      checks: Array<{ id: string; verdict: string }>;
    }>;
    try {
      const json = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
      reports = json.reports ?? [json];
    } catch {
      console.log(`run ${i + 1}: no report (exit ${r.status}, signal ${r.signal})\n${r.stderr.slice(-2000)}`);
      process.exitCode = 1;
      continue;
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
    for (const rep of reports) {
      const v: Verdicts = {
        scenario: rep.scenario.name,
        verdict: rep.verdict,
        failed: rep.checks.filter((c) => c.verdict === 'fail').map((c) => c.id),
        inconclusive: rep.inconclusive ?? [],
      };
      byScenario.set(v.scenario, [...(byScenario.get(v.scenario) ?? []), v]);
    }
    const fails = reports
      .filter((x) => x.verdict === 'fail')
      .map(
        (x) =>
          `${x.scenario.name} (${x.checks
            .filter((c) => c.verdict === 'fail')
            .map((c) => c.id)
            .join(', ')})`,
      );
    console.log(
      `run ${i + 1}/${runs}: ${reports.length} scenarios, ${durations.at(-1)!.toFixed(0)} s, load ${loads.at(-1)!.toFixed(1)}${fails.length ? `, FAIL: ${fails.join(', ')}` : ''}`,
    );
  }
} finally {
  stopHogs();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
console.log(`\nmachine: ${cpus().length} × ${cpus()[0]?.model}; ${hogCount} CPU-bound processes beside; ${runs} runs`);
console.log(
  `pack run: median ${median(durations).toFixed(0)} s; load average (1 min) median ${median(loads).toFixed(1)}\n`,
);
console.log('| scenario | PASS | INCONCLUSIVE | FAIL | failed checks | inconclusive reasons |');
console.log('|---|---|---|---|---|---|');
let failTotal = 0;
for (const [name, vs] of byScenario) {
  const n = (w: string) => vs.filter((v) => v.verdict === w).length;
  failTotal += n('fail');
  const failed = [...new Set(vs.flatMap((v) => v.failed))].join(', ');
  const reasons = [...new Set(vs.flatMap((v) => v.inconclusive.map((x) => x.replace(/\d+(\.\d+)?/g, 'N'))))].join('; ');
  console.log(`| ${name} | ${n('pass')} | ${n('inconclusive')} | ${n('fail')} | ${failed} | ${reasons} |`);
}
console.log(`\n${failTotal} FAIL over ${runs} runs`);
if (failTotal > 0) process.exitCode = 1;
