// Cold start of the built CLI (dist/) against a bare `node -e "require('yaml')"`, side by side:
// each round runs every command once, in turn, so a busy machine slows them alike; medians over
// the rounds, and each command's median divided by the baseline's (issue 25 item 5: validate ≤ 4×).
//   npm run build && npm run bench:cli-cold-start -- [--rounds 10] [--before ../main/dist/bin/throttlelab.js]
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist/bin/throttlelab.js');
const flag = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const rounds = Number(flag('--rounds') ?? 10);
// Another build's CLI (e.g. main's dist/bin/throttlelab.js) for before/after rows.
const before = flag('--before');

const PACK = readdirSync(join(ROOT, 'scenarios/conformance'))
  .filter((n) => n.endsWith('.yaml'))
  .map((n) => join('scenarios/conformance', n));

const COMMANDS: ReadonlyArray<{ name: string; args: string[]; exit: number }> = [
  { name: `node -e "require('yaml')" (baseline)`, args: ['-e', "require('yaml')"], exit: 0 },
  {
    name: 'throttlelab validate scenarios/quickstart.yaml',
    args: [CLI, 'validate', 'scenarios/quickstart.yaml'],
    exit: 0,
  },
  {
    name: `throttlelab validate <the pack's ${PACK.length} files>`,
    args: [CLI, 'validate', ...PACK],
    exit: 0,
  },
  { name: 'throttlelab validate nope.yaml (missing)', args: [CLI, 'validate', 'nope.yaml'], exit: 2 },
  { name: 'throttlelab --version', args: [CLI, '--version'], exit: 0 },
  { name: 'throttlelab run --sed 1 x.yaml (typo)', args: [CLI, 'run', '--sed', '1', 'x.yaml'], exit: 2 },
  { name: 'throttlelab --help', args: [CLI, '--help'], exit: 0 },
  // report and fault load their own modules only (harness/report-index.ts, no simulator engine).
  { name: 'throttlelab report nope.json (missing)', args: [CLI, 'report', 'nope.json'], exit: 2 },
  {
    name: 'throttlelab fault list (no simulator)',
    args: [CLI, 'fault', 'list', '--sim', 'http://127.0.0.1:9'],
    exit: 2,
  },
  ...(before
    ? [
        {
          name: 'before: validate scenarios/quickstart.yaml',
          args: [before, 'validate', 'scenarios/quickstart.yaml'],
          exit: 0,
        },
        { name: `before: validate <the pack's ${PACK.length} files>`, args: [before, 'validate', ...PACK], exit: 0 },
        { name: 'before: report nope.json (missing)', args: [before, 'report', 'nope.json'], exit: 2 },
        {
          name: 'before: fault list (no simulator)',
          args: [before, 'fault', 'list', '--sim', 'http://127.0.0.1:9'],
          exit: 2,
        },
      ]
    : []),
];

const times = COMMANDS.map(() => [] as number[]);
for (let r = 0; r < rounds; r++)
  for (const [i, c] of COMMANDS.entries()) {
    const t0 = process.hrtime.bigint();
    const res = spawnSync(process.execPath, c.args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (res.status !== c.exit)
      throw new Error(`${c.name}: exit ${res.status}, expected ${c.exit}\n${res.stdout}${res.stderr}`);
    times[i]!.push(ms);
  }

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const base = median(times[0]!);
console.log(
  `CLI cold start, ${rounds} rounds interleaved; Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? '?'}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(`${'command'.padEnd(52)} ${'median'.padStart(8)} ${'min'.padStart(8)} ${'max'.padStart(8)}  ÷ baseline`);
for (const [i, c] of COMMANDS.entries()) {
  const t = times[i]!;
  console.log(
    `${c.name.padEnd(52)} ${`${median(t).toFixed(0)} ms`.padStart(8)} ${`${Math.min(...t).toFixed(0)} ms`.padStart(8)} ${`${Math.max(...t).toFixed(0)} ms`.padStart(8)}  ${(median(t) / base).toFixed(2)}×`,
  );
}
