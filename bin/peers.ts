// `npm run peers`: installs a peer gateway (Portkey's, or nullplatform's llm-gateway) into a
// scratch folder, runs the quickstart and the conformance pack against it (its routing config
// written from each scenario), several times, and writes its page: the verdict table, the verdict
// of each clause of docs/spec.md on the scenario that forces it, each failure with the ledger's
// evidence, and whether the runs agreed.
// Each run's evidence stays in <reports>/run-N/<scenario>/: ledger.jsonl, outcomes.jsonl,
// router.log (the gateway's own output) and report.json / report.txt (the verdicts with their
// reasons), so every verdict can be followed to its attempts. The page goes to
// reports/peers/<peer>.md; the tracked docs/peers.md changes only when asked (`--out docs/peers.md`),
// and then its hand-written blocks (`<!-- hand:NAME -->` … `<!-- /hand:NAME -->`) are kept (peer-page.ts).
// `--compare llm-gateway=.peers/reports-llm-gateway` adds another peer's saved verdicts to the clause table;
// `--from-reports <reports dir>` writes the page again from a run's saved reports (a clause landed since), running nothing.
//   npm run peers -- [--peer portkey|llm-gateway] [--runs 3] [--dir .peers/<peer>] [--only 03-all-exhausted]
//     [--out reports/peers/<peer>.md | docs/peers.md] [--compare <peer>=<reports>] [--from-reports <reports>]
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import {
  CLAUSES,
  buildReport,
  clauseVerdicts,
  forcingScenarios,
  installLlmGateway,
  installPortkey,
  ledgerLines,
  renderVerdictTable,
  runLlmGatewayScenario,
  runPortkeyScenario,
  LLM_GATEWAY_VERSION,
  PORTKEY_VERSION,
  type RunData,
} from '../harness/index.js';
import { writeEvidenceFiles } from './evidence-files.js';
import { writePeerPage } from './peer-page.js';
import { readAttempts, readPeerReports } from './peer-reports.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const USAGE =
  'usage: npm run peers -- [--peer portkey|llm-gateway] [--runs 3] [--dir .peers/<peer>] [--reports <dir>/../reports] [--only <part of a scenario file name>] [--out reports/peers/<peer>.md (default) | docs/peers.md | docs/peers-llm-gateway.md] [--compare <peer>=<its reports dir>,…] [--from-reports <reports dir>]\n';
const known = new Set(['peer', 'runs', 'dir', 'reports', 'only', 'out', 'compare', 'from-reports']);
const unknown = [...args.keys()].filter((k) => !known.has(k));
const peerName = args.get('peer') ?? 'portkey';
if (
  unknown.length > 0 ||
  [...args.values()].some((v) => v === undefined) ||
  (peerName !== 'portkey' && peerName !== 'llm-gateway')
) {
  // Never run the pack (and overwrite a page) on a flag it does not know, `--help` included.
  const asked = unknown.length === 1 && unknown[0] === 'help';
  process.stdout.write(asked ? USAGE : `unknown or incomplete option: ${process.argv.slice(2).join(' ')}\n${USAGE}`);
  process.exit(asked ? 0 : 2);
}
const runs = Math.max(1, Math.min(5, Number(args.get('runs') ?? 3)));
const dir = resolve(args.get('dir') ?? `.peers/${peerName}`);
// The tracked pages in docs/ hold hand-written analysis: they change only when named with --out.
const out = resolve(args.get('out') ?? `reports/peers/${peerName}.md`);
const only = args.get('only');
// Portkey's evidence keeps its old place; another peer's goes beside it, never over it.
const fromReports = args.get('from-reports');
const reports = resolve(
  fromReports ?? args.get('reports') ?? join(dirname(dir), peerName === 'portkey' ? 'reports' : `reports-${peerName}`),
);

/** A gateway under test: how its page introduces it, and how to install it and run a scenario file against it. */
interface Peer {
  title: string;
  intro: string[];
  droppedColumn: string;
  install: () => Promise<(file: string, evidence: string) => Promise<{ run: RunData; dropped: string[] }>>;
}

const env = { PATH: process.env.PATH };
const PEERS: Record<'portkey' | 'llm-gateway', Peer> = {
  portkey: {
    title: 'Portkey AI gateway',
    install: async () => {
      const portkey = await installPortkey(dir);
      return (file, evidence) => runPortkeyScenario(portkey, file, { env, logFile: join(evidence, 'router.log') });
    },
    droppedColumn: 'models not sent (no Portkey route)',
    intro: [
      `\`npm run peers -- --runs ${runs}\` (\`bin/peers.ts\`) installs \`@portkey-ai/gateway@${PORTKEY_VERSION}\` into a scratch`,
      'folder (`harness/peers/install-portkey.ts`: not a dependency of throttlelab; `hono` and `@hono/node-server` pinned, see',
      'there why; bound to 127.0.0.1 by a preload), writes its routing config from each scenario',
      '(`harness/peers/portkey-config.ts`: `auto` falls back across the providers in order, `provider/model`, bare model names',
      'and aliases are conditions on the model asked; a model it cannot route is not sent at all) and runs the quickstart',
      'and the conformance pack against it. Each run keeps `ledger.jsonl`, `outcomes.jsonl` and `router.log` in',
      `\`${relative(reports)}/run-N/<scenario>/\`. nullplatform's llm-gateway: [peers-llm-gateway.md](peers-llm-gateway.md).`,
    ],
  },
  'llm-gateway': {
    title: "nullplatform's llm-gateway",
    install: async () => {
      const gateway = await installLlmGateway(dir);
      return (file, evidence) => runLlmGatewayScenario(gateway, file, { env, logFile: join(evidence, 'router.log') });
    },
    droppedColumn: 'models not sent (llm-gateway routes one model name per scenario)',
    intro: [
      `\`npm run peers -- --peer llm-gateway --runs ${runs}\` (\`bin/peers.ts\`) installs \`@nullplatform/llm-gateway@${LLM_GATEWAY_VERSION}\``,
      'into a scratch folder (`harness/peers/install-llm-gateway.ts`: not a dependency of throttlelab; its SDK pinned, see there',
      'why; bound to 127.0.0.1 by a preload), writes its config from each scenario (`harness/peers/llm-gateway-config.ts`:',
      'one `models` entry per provider its `openai` and `anthropic` provider types reach, the bundled `model-router` plugin',
      'falling back along them in order) and runs the quickstart and the conformance pack against it. It routes every request',
      "by one chain whatever model the client asks, so one model name of each scenario's load is sent (`auto` when the",
      'load has it) and the others are not sent at all (last column); see',
      '[third-party-routers.md](third-party-routers.md#nullplatform-llm-gateway). Each run keeps `ledger.jsonl`,',
      `\`outcomes.jsonl\` and \`router.log\` in \`${relative(reports)}/run-N/<scenario>/\`. Portkey: [peers.md](peers.md).`,
    ],
  },
};

function relative(path: string): string {
  const cwd = process.cwd();
  return path.startsWith(cwd + '/') ? path.slice(cwd.length + 1) : path;
}

const files = [
  'scenarios/quickstart.yaml',
  ...(await readdir('scenarios/conformance'))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => `scenarios/conformance/${f}`),
].filter((f) => !only || f.includes(only));

const peer = PEERS[peerName as keyof typeof PEERS];
if (fromReports === undefined) {
  process.stdout.write(`installing ${peerName} into ${dir} …\n`);
  const runFile = await peer.install();
  for (let r = 0; r < runs; r++)
    for (const file of files) {
      const evidence = join(reports, `run-${r + 1}`, basename(file, '.yaml'));
      await mkdir(evidence, { recursive: true });
      const { run, dropped } = await runFile(file, evidence);
      await writeEvidenceFiles(evidence, run);
      // The judgement beside its evidence: each check's reason and the lines on the harness's lag and
      // the gateway's run-queue delay, which a verdict that changed between runs is read against.
      const report = buildReport(run);
      await writeFile(join(evidence, 'report.json'), JSON.stringify(report) + '\n');
      await writeFile(join(evidence, 'report.txt'), renderVerdictTable(report) + '\n');
      await writeFile(join(evidence, 'not-sent.json'), JSON.stringify(dropped) + '\n');
      const failed = run.checks.filter((c) => c.verdict === 'fail').map((c) => c.id);
      process.stdout.write(
        `run ${r + 1}/${runs} ${file}: ${run.verdict}${failed.length ? ` (FAIL ${failed.join(', ')})` : ''}${run.inconclusive?.length ? `; inconclusive: ${run.inconclusive.join('; ')}` : ''}\n`,
      );
    }
}
// The page is written from the saved reports, whether this invocation ran them or not.
const played: ReadonlySet<string> = new Set(files.map((f) => basename(f, '.yaml')));
const saved = await readPeerReports(reports, runs, played);

/** The place of a hand-written block: writePeerPage puts back the one the page already has. */
const hand = (name: string): string[] => [`<!-- hand:${name} -->\n<!-- /hand:${name} -->`];
const mark = (v: string) => (v === 'pass' ? 'PASS' : v === 'fail' ? '**FAIL**' : v.toUpperCase());
const lines = [
  `# Peers: ${peer.title}`,
  '',
  ...peer.intro,
  `Generated ${new Date().toISOString().slice(0, 10)}; ${Math.max(0, ...[...saved.values()].map((x) => x.verdicts.length))} run(s) of every scenario.`,
  '',
  ...hand('notes'),
  '',
  `| scenario | run verdicts | checks not passing (run 1) | every check the same in every run | ${peer.droppedColumn} |`,
  '|---|---|---|---|---|',
];
const details: string[] = [];
for (const file of files) {
  const scenario = saved.get(basename(file, '.yaml'));
  if (!scenario) continue;
  const list = scenario.checks;
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
    `| ${file.replace('scenarios/', '')} | ${scenario.verdicts.map(mark).join(' / ')} | ${shown || 'all PASS'} | ${stable ? 'yes' : `NO: ${differing.join(', ')}`} | ${scenario.dropped.join(', ') || '-'} |`,
  );
  for (const c of first.filter((x) => x.verdict === 'fail')) {
    details.push(`### ${file.replace('scenarios/', '')}: ${c.id}`, '', `${c.figure}`, '');
    for (const e of c.evidence.slice(0, 3)) details.push(`- \`${e.correlationId ?? ''}\` ${e.detail}`);
    details.push('');
  }
}

// By clause: each clause's check on the scenario its `- Forced by:` line names, for this peer and
// any peer compared with it, read back from the saved reports with the ledger lines of each FAIL.
const forced = forcingScenarios(await readFile('docs/spec.md', 'utf8'));
const compared = (args.get('compare') ?? '')
  .split(',')
  .filter(Boolean)
  .map((pair) => ({ name: pair.slice(0, pair.indexOf('=')), reports: resolve(pair.slice(pair.indexOf('=') + 1)) }));
const columns: Array<{ name: string; reports: string; runs?: number; scenarios?: ReadonlySet<string> }> = [
  { name: peerName, reports, runs, scenarios: played },
  ...compared,
];
const tables = await Promise.all(
  columns.map(async (c) => ({
    ...c,
    rows: clauseVerdicts(
      CLAUSES,
      forced,
      new Map([...(await readPeerReports(c.reports, c.runs, c.scenarios))].map(([k, v]) => [k, v.checks])),
    ),
  })),
);
lines.push(
  '',
  '## By clause of docs/spec.md',
  '',
  'Each clause of [spec.md](spec.md) (`CLAUSES` in `harness/spec/clauses.ts`), judged by its check on the pack',
  'scenario its "Forced by" line names: the verdict in each run, run 1 first. The evidence of each FAIL is the',
  "check's first correlation id and that id's attempts in run 1's `ledger.jsonl`.",
  ...(compared.length
    ? [
        `Other peers' verdicts are read from their saved reports: ${compared.map((c) => `${c.name} from \`${relative(c.reports)}\``).join(', ')}.`,
      ]
    : []),
  '',
  `| clause | level | check | forced by | ${columns.map((c) => c.name).join(' | ')} |`,
  `|---|---|---|---|${columns.map(() => '---|').join('')}`,
);
const clauseDetails: string[] = [];
for (const [i, clause] of CLAUSES.entries()) {
  const scenario = tables[0]!.rows[i]!.scenario;
  lines.push(
    `| ${clause.id}. ${clause.title} | ${clause.level} | \`${clause.check}\` | ${scenario ? `\`${scenario}\`` : '-'} | ${tables.map((t) => t.rows[i]!.verdicts.map(mark).join(' / ')).join(' | ')} |`,
  );
  for (const t of tables) {
    const first = t.rows[i]!.first;
    if (first?.verdict !== 'fail' || !scenario) continue;
    const e = first.evidence.find((x) => x.correlationId);
    clauseDetails.push(
      `- **${clause.id}, ${t.name}** (\`${clause.check}\` on \`${scenario}\`): ${first.figure}.${e ? ` First evidence \`${e.correlationId}\`: ${e.detail}` : ''}`,
    );
    if (!e?.correlationId) continue;
    const { rows, outcome } = await readAttempts(join(t.reports, 'run-1', scenario), e.correlationId);
    for (const l of ledgerLines(e.correlationId, rows, outcome)) clauseDetails.push(`  - ${l}`);
  }
}
if (clauseDetails.length) lines.push('', '### Each clause FAIL, from the ledger', '', ...clauseDetails);
lines.push('', ...hand('clauses'));
lines.push('', '## Each failure, from the ledger', '', ...details);
await writePeerPage(out, lines.join('\n') + '\n');
process.stdout.write(`wrote ${out}\n`);
