import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { formatSeedRange, parseSeedRange, seedVerdicts } from '../../harness/index.js';
import { CliError } from '../errors.js';
import type { ExploreRouter } from '../explore-job.js';
import { sweep } from '../explore-sweep.js';
import { EXIT, interruptedCode, verdictCode, type ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import { routerLabel, writeSweep, type SweepEvidence } from './explore.js';
import { prepareRun, type RouterChoice } from './run.js';

/**
 * `conform --seeds A..B`: one pack verdict over several seeds, FAIL if any seed fails a check. Runs
 * go to worker processes as in `explore`; a line per seed, then each failing seed's replay line.
 */
export async function conformOverSeeds(
  files: string[],
  options: RouterChoice & { seeds: string; out?: string; evidence?: SweepEvidence },
  io: Io,
): Promise<ExitCode> {
  const parsed = parseSeedRange(options.seeds);
  if (!parsed.ok) throw new CliError('CLI_USAGE', `--seeds: ${parsed.message}.`);
  if (options.routerUrl)
    throw new CliError(
      'CLI_USAGE',
      '--seeds with --router-url: a router already running keeps its state from seed to seed; let throttlelab start it (--router-cmd).',
    );
  // A fleet's Redis, already running (a CI service container), serves every seed's run: each keys
  // under a prefix of its own.
  const redis = options.redisUrl ? { redisUrl: options.redisUrl } : {};
  const router: ExploreRouter = options.routerCmd
    ? { kind: 'command', command: options.routerCmd, ...redis }
    : { kind: 'reference', time: options.time ?? 'wall', ...redis };
  const loadMs = new Map<string, number>();
  for (const f of files) {
    const p = await prepareRun(f, options, io);
    if (!p) return EXIT.BAD_INPUT;
    loadMs.set(f, p.scenario.load!.duration);
  }
  const simulated = router.kind === 'reference' && router.time === 'simulated';
  const workers = Math.min(simulated ? availableParallelism() : 1, files.length * parsed.seeds.length);
  const label = routerLabel(router);
  io.out(
    `conformance over seeds ${formatSeedRange(parsed.seeds)}: ${files.length} scenario${files.length === 1 ? '' : 's'} × ${parsed.seeds.length} seed${parsed.seeds.length === 1 ? '' : 's'} against ${label}, ${workers} worker${workers === 1 ? '' : 's'}`,
  );
  const { summary, runs } = await sweep(
    {
      files,
      seeds: parsed.seeds,
      router,
      workers,
      loadMs,
      jobTimeoutMs: (load) => (simulated ? 120_000 : load + 120_000),
    },
    io,
  );
  const perSeed = seedVerdicts(parsed.seeds, files.length, runs);
  for (const s of perSeed) {
    io.out(`  seed ${s.seed}: ${s.verdict.toUpperCase()} (${s.passed} of ${files.length} scenarios pass)`);
    for (const p of s.problems) io.out(`    ${p}`);
    for (const u of s.unsure) io.out(`    inconclusive: ${u}`);
  }
  const replays = summary.scenarios.flatMap((t) => [...t.failing, ...t.errors].map((n) => ({ t, n })));
  if (replays.length > 0) {
    io.out('replay:');
    for (const { t, n } of replays.sort((a, b) => a.n.seed - b.n.seed))
      io.out(`  ${t.scenario} seed ${n.seed}: ${n.replay}`);
  }
  const dir = options.out ?? join('reports', `conformance-seeds-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const written = await writeSweep(
    summary,
    runs,
    label,
    { json: join(dir, 'explore.json'), html: join(dir, 'explore.html') },
    options.evidence,
  );
  const passing = perSeed.filter((s) => s.verdict === 'pass').length;
  io.out(
    `conformance: ${summary.verdict.toUpperCase()} over seeds ${formatSeedRange(parsed.seeds)}: ${passing} of ${parsed.seeds.length} seeds pass every scenario`,
  );
  io.out(`report: ${written.join(', ')}`);
  if (io.stop.aborted) return interruptedCode(io.stop);
  return verdictCode([summary.verdict]);
}
