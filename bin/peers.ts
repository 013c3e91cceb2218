// `npm run peers`: installs Portkey's gateway into a scratch folder, runs the quickstart and the
// conformance pack against it (its routing config written from each scenario), several times,
// and writes docs/peers.md: the verdict table, each failure with the ledger's evidence, and
// whether the runs agreed.
// Each run's evidence stays in <dir>/../reports/run-N/<scenario>/: ledger.jsonl, outcomes.jsonl,
// router.log (Portkey's own output) and report.json / report.txt (the verdicts with their reasons),
// so every verdict can be followed to its attempts.
//   npm run peers -- [--runs 3] [--dir .peers/portkey] [--only 03-all-exhausted] [--out docs/peers.md]
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import {
  buildReport,
  installPortkey,
  renderVerdictTable,
  runPortkeyScenario,
  type CheckResult,
} from '../harness/index.js';
import { writeEvidenceFiles } from './evidence-files.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const USAGE =
  'usage: npm run peers -- [--runs 3] [--dir .peers/portkey] [--reports <dir>/../reports] [--only <part of a scenario file name>] [--out docs/peers.md]\n';
const known = new Set(['runs', 'dir', 'reports', 'only', 'out']);
const unknown = [...args.keys()].filter((k) => !known.has(k));
if (unknown.length > 0 || [...args.values()].some((v) => v === undefined)) {
  // Never run the pack (and overwrite docs/peers.md) on a flag it does not know, `--help` included.
  const asked = unknown.length === 1 && unknown[0] === 'help';
  process.stdout.write(asked ? USAGE : `unknown or incomplete option: ${process.argv.slice(2).join(' ')}\n${USAGE}`);
  process.exit(asked ? 0 : 2);
}
const runs = Math.max(1, Math.min(5, Number(args.get('runs') ?? 3)));
const dir = resolve(args.get('dir') ?? '.peers/portkey');
const out = resolve(args.get('out') ?? 'docs/peers.md');
const only = args.get('only');

const files = [
  'scenarios/quickstart.yaml',
  ...(await readdir('scenarios/conformance'))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => `scenarios/conformance/${f}`),
].filter((f) => !only || f.includes(only));

process.stdout.write(`installing Portkey into ${dir} …\n`);
const portkey = await installPortkey(dir);
const reports = resolve(args.get('reports') ?? join(dirname(dir), 'reports'));
const results = new Map<string, CheckResult[][]>();
const verdicts = new Map<string, string[]>();
const dropped = new Map<string, string[]>();
for (let r = 0; r < runs; r++)
  for (const file of files) {
    const evidence = join(reports, `run-${r + 1}`, basename(file, '.yaml'));
    await mkdir(evidence, { recursive: true });
    const { run, dropped: notSent } = await runPortkeyScenario(portkey, file, {
      env: { PATH: process.env.PATH },
      logFile: join(evidence, 'router.log'),
    });
    dropped.set(file, notSent);
    await writeEvidenceFiles(evidence, run);
    // The judgement beside its evidence: each check's reason and the lines on the harness's lag and
    // Portkey's run-queue delay, which a verdict that changed between runs is read against.
    const report = buildReport(run);
    await writeFile(join(evidence, 'report.json'), JSON.stringify(report) + '\n');
    await writeFile(join(evidence, 'report.txt'), renderVerdictTable(report) + '\n');
    const list = results.get(file) ?? [];
    list.push(run.checks);
    results.set(file, list);
    verdicts.set(file, [...(verdicts.get(file) ?? []), run.verdict]);
    const failed = run.checks.filter((c) => c.verdict === 'fail').map((c) => c.id);
    process.stdout.write(
      `run ${r + 1}/${runs} ${file}: ${run.verdict}${failed.length ? ` (FAIL ${failed.join(', ')})` : ''}${run.inconclusive?.length ? `; inconclusive: ${run.inconclusive.join('; ')}` : ''}\n`,
    );
  }

const mark = (v: string) => (v === 'pass' ? 'PASS' : v === 'fail' ? '**FAIL**' : v.toUpperCase());
const lines = [
  '# Peers: Portkey AI gateway',
  '',
  `\`npm run peers -- --runs ${runs}\` (\`bin/peers.ts\`) installs \`@portkey-ai/gateway@${portkey.version}\` into a scratch`,
  'folder (`harness/peers/install-portkey.ts`: not a dependency of throttlelab; `hono` and `@hono/node-server` pinned, see',
  'there why; bound to 127.0.0.1 by a preload), writes its routing config from each scenario',
  '(`harness/peers/portkey-config.ts`: `auto` falls back across the providers in order, `provider/model`, bare model names',
  'and aliases are conditions on the model asked; a model it cannot route is not sent at all) and runs the quickstart',
  'and the conformance pack against it. Each run keeps `ledger.jsonl`, `outcomes.jsonl` and `router.log` in',
  '`.peers/reports/run-N/<scenario>/`.',
  `Generated ${new Date().toISOString().slice(0, 10)}; ${runs} identical runs of every scenario.`,
  '',
  '| scenario | run verdicts | checks not passing (run 1) | every check the same in every run | models not sent (no Portkey route) |',
  '|---|---|---|---|---|',
];
const details: string[] = [];
for (const [file, list] of results) {
  const first = list[0]!;
  const stable = first.every((c, i) => list.every((checks) => checks[i]?.verdict === c.verdict));
  const differing = first
    .filter((c, i) => !list.every((checks) => checks[i]?.verdict === c.verdict))
    .map((c) => `${c.id} (${list.map((checks) => checks[first.indexOf(c)]?.verdict ?? '-').join('/')})`);
  const shown = first
    .filter((c) => c.verdict !== 'pass')
    .map((c) => `${c.id} ${mark(c.verdict)}`)
    .join(', ');
  lines.push(
    `| ${file.replace('scenarios/', '')} | ${(verdicts.get(file) ?? []).map(mark).join(' / ')} | ${shown || 'all PASS'} | ${stable ? 'yes' : `NO: ${differing.join(', ')}`} | ${(dropped.get(file) ?? []).join(', ') || '-'} |`,
  );
  for (const c of first.filter((x) => x.verdict === 'fail')) {
    details.push(`### ${file.replace('scenarios/', '')}: ${c.id}`, '', `${c.figure}`, '');
    for (const e of c.evidence.slice(0, 3)) details.push(`- \`${e.correlationId ?? ''}\` ${e.detail}`);
    details.push('');
  }
}
lines.push('', '## Each failure, from the ledger', '', ...details);
await writeFile(out, lines.join('\n') + '\n');
process.stdout.write(`wrote ${out}\n`);
