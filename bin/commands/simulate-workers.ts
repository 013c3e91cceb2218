import cluster, { type Worker } from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { loadRunScenarioFile, startRedisServer, type RedisServer } from '../../harness/index.js';
import {
  connectRedisQuota,
  groupEpochMarkers,
  createSimulator,
  formatDurationShort,
  openLedgerStream,
  type StreamShortfall,
} from '../../simulator/index.js';
import { CliError } from '../errors.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import { collectJoinedLedger, type JoinedLedger } from '../joined-ledger.js';
import { openLedgerFile } from '../ledger-file.js';
import { mergeLedgerParts } from '../ledger-merge.js';
import { printBanner } from './simulate-banner.js';
import { publishSimulateGroup } from './simulate-group.js';
import { serveAsWorker, type WorkerConfig, type WorkerMessage } from './simulate-worker.js';

/** Options of `throttlelab simulate --workers N`. */
export interface SimulateWorkersOptions {
  scenario: string;
  workers: number;
  /** The Redis the quotas are shared through; a private redis-server when absent. */
  redisUrl?: string;
  seed?: number;
  port?: number;
  host?: '127.0.0.1' | '::1';
  durationMs?: number;
  ledgerOut?: string;
  /** How long the primary waits, once it has stopped, for joined workers to send their last rows (ms). */
  joinerTimeoutMs?: number;
}

type Stopped = Extract<WorkerMessage, { type: 'stopped' }>;

/** The default of `joinerTimeoutMs`. */
const JOINED_SETTLE_MS = 30_000;

/** Resolves with the first message of `type` from `worker`; rejects if it exits first. */
function messageOf<T extends WorkerMessage['type']>(
  worker: Worker,
  type: T,
): Promise<Extract<WorkerMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: WorkerMessage) => {
      if (m.type !== type) return;
      worker.off('exit', onExit);
      worker.off('message', onMessage);
      resolve(m as Extract<WorkerMessage, { type: T }>);
    };
    const onExit = (code: number) => {
      worker.off('message', onMessage);
      reject(new Error(`worker ${worker.id} exited (code ${code}) before it was ${type}`));
    };
    worker.on('message', onMessage);
    worker.once('exit', onExit);
  });
}

/** In a forked worker: serves until the primary says stop (or goes away). */
function runWorker(io: Io): Promise<ExitCode> {
  const config = JSON.parse(io.env.THROTTLELAB_WORKER ?? '{}') as WorkerConfig;
  const stopped = new Promise<void>((resolve) => {
    process.on('message', (m: WorkerMessage) => m.type === 'stop' && resolve());
    process.once('disconnect', () => resolve());
  });
  return serveAsWorker(config, io, (m) => process.send?.(m), stopped);
}

/**
 * Serves a scenario from `workers` processes (node:cluster) on one port, every quota decided
 * through Redis so that a limit holds exactly whichever worker answers, and one ledger merged
 * from the workers' parts at the end. Simulated time stays single-process.
 */
export async function simulateWorkers(options: SimulateWorkersOptions, io: Io): Promise<ExitCode> {
  if (cluster.isWorker) return runWorker(io);
  const loaded = await loadRunScenarioFile(options.scenario, io.env);
  if (!loaded.ok) {
    io.err(loaded.report);
    return EXIT.BAD_INPUT;
  }
  const scenario = loaded.scenario;
  const seed = options.seed ?? scenario.seed ?? io.randomSeed();
  if (options.ledgerOut) await (await openLedgerFile(options.ledgerOut, () => {})).close();
  const own: RedisServer | undefined = options.redisUrl ? undefined : await startRedisServer();
  const redisUrl = options.redisUrl ?? own!.url;
  const workers: Worker[] = [];
  let withdraw: (() => Promise<void>) | undefined;
  let removeStream: (() => Promise<void>) | undefined;
  try {
    const prefix = `tl:${randomUUID().slice(0, 8)}`;
    // The quota script decides only while these are there: Redis emptied later reads as a loss.
    const quota = await connectRedisQuota({ url: redisUrl });
    await quota.markEpochs(groupEpochMarkers(scenario, prefix, Date.now())).finally(() => quota.close());
    removeStream = await openLedgerStream(redisUrl, prefix);
    // Joined workers' attempts reach --ledger-out through the stream; forked workers' through files.
    const joinedPart = options.ledgerOut ? `${options.ledgerOut}.joined` : undefined;
    const joined = joinedPart
      ? await collectJoinedLedger({
          url: redisUrl,
          prefix,
          part: joinedPart,
          forked: options.workers,
          warn: (line) => io.err(`simulate: ${line}`),
        })
      : undefined;
    // The group's fault timeline starts now, for every worker (forked or joined) alike.
    const faultsFrom = Date.now();
    // Workers on other hosts join through the same Redis (`simulate --join`), until this stops.
    withdraw = await publishSimulateGroup(redisUrl, {
      faultsFrom,
      scenarioText: loaded.text,
      seed,
      prefix,
      workers: options.workers,
    });
    const parts: string[] = [];
    for (let i = 1; i <= options.workers; i++) {
      const ledgerPart = options.ledgerOut ? `${options.ledgerOut}.worker-${i}` : undefined;
      if (ledgerPart) parts.push(ledgerPart);
      const config: WorkerConfig = {
        scenario: options.scenario,
        seed,
        port: options.port ?? scenario.simulator.port,
        host: options.host,
        redisUrl,
        prefix,
        workerId: `w${i}`,
        forked: options.workers,
        ledgerPart,
        share: options.workers,
        faultsFrom,
      };
      workers.push(cluster.fork({ THROTTLELAB_WORKER: JSON.stringify(config) }));
    }
    const ready = await Promise.all(workers.map((w) => messageOf(w, 'ready')));
    const startedAt = Date.now();
    printBanner(io, {
      sim: createSimulator(scenario, { seed, env: io.env }),
      seed,
      origin: ready[0]!.origin,
      durationMs: options.durationMs,
      spread: `workers: ${options.workers} processes on one port; quotas shared through ${own ? 'a private redis-server' : 'Redis'} at ${redisUrl} (key prefix ${prefix}; more hosts: simulate --join <redis-url> --group ${prefix}); control API: live faults shared by every worker, quota per worker, ledger and events of every worker`,
    });
    await new Promise<void>((resolve) => {
      const timer = options.durationMs !== undefined ? setTimeout(resolve, options.durationMs) : undefined;
      io.stop.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
    const results: Stopped[] = await Promise.all(
      workers.map((w) => {
        const stopped = messageOf(w, 'stopped');
        w.send({ type: 'stop' } satisfies WorkerMessage);
        return stopped;
      }),
    );
    // Joined workers stop once the group is withdrawn; their last rows come after.
    await withdraw();
    withdraw = undefined;
    await joined?.settle(options.joinerTimeoutMs ?? JOINED_SETTLE_MS);
    const fromJoined = await joined?.close();
    const written = options.ledgerOut
      ? await mergeLedgerParts(joinedPart ? [...parts, joinedPart] : parts, options.ledgerOut)
      : undefined;
    printSummary(io, results, Date.now() - startedAt);
    if (options.ledgerOut) {
      io.out(
        `ledger: ${written} attempts from ${options.workers} workers${joinedText(fromJoined)} merged into ${options.ledgerOut}`,
      );
      if (fromJoined!.refused.entries)
        io.err(
          `simulate: refused ${fromJoined!.refused.entries} entries of the ledger stream (${fromJoined!.refused.rows} rows) that no worker of this group could have written`,
        );
      checkJoined(options.ledgerOut, fromJoined!, options.joinerTimeoutMs ?? JOINED_SETTLE_MS);
    }
    return EXIT.OK;
  } finally {
    await withdraw?.();
    await removeStream?.();
    for (const w of workers) if (!w.isDead()) w.kill();
    await own?.close();
  }
}

function printSummary(io: Io, results: readonly Stopped[], elapsedMs: number): void {
  const total = results.reduce((n, r) => n + r.attempts, 0);
  io.out('');
  io.out(
    `stopped after ${formatDurationShort(elapsedMs)}: ${total} attempts (per worker: ${results.map((r) => r.attempts).join(', ')})${total ? ':' : '.'}`,
  );
  const byProvider = new Map<string, Map<number, number>>();
  for (const r of results)
    for (const [provider, status, n] of r.counts) {
      const byStatus = byProvider.get(provider) ?? new Map<number, number>();
      byStatus.set(status, (byStatus.get(status) ?? 0) + n);
      byProvider.set(provider, byStatus);
    }
  results.forEach((r, i) => {
    for (const line of degradedLines(r, results.length)) io.out(`  DEGRADED worker ${i + 1}: ${line}`);
  });
  for (const [provider, byStatus] of byProvider)
    io.out(
      `  ${provider}: ${[...byStatus]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${n}×${s === 0 ? 'no status' : s}`)
        .join(', ')}`,
    );
}

function joinedText(joined: JoinedLedger | undefined): string {
  if (!joined?.workers.length) return '';
  const each = joined.workers.map((w) => `${w.worker}: ${w.received}`).join(', ');
  return ` and ${joined.workers.length} joined (${each})`;
}

/** Throws unless every joined worker's attempts reached the ledger: a shortfall is an error, never silent. */
function checkJoined(file: string, joined: JoinedLedger, settleMs: number): void {
  const lines = joined.shortfalls.map((s: StreamShortfall) => {
    const refused = s.refused ? `${s.refused} arrived malformed and were refused, ` : '';
    const lost = `${s.missing - (s.refused ?? 0)} did not reach the group's ledger stream (Redis down too long, or trimmed from the stream before they were read)`;
    return s.total === undefined
      ? `joined worker ${s.worker} did not say it stopped within ${settleMs / 1000} s (--joiner-timeout); ${s.received} of its attempts are in the file, later ones may be missing${s.refused ? ` (${s.refused} arrived malformed and were refused)` : ''}`
      : `joined worker ${s.worker} recorded ${s.total} attempts; ${s.missing} of them are missing: ${refused}${lost}`;
  });
  if (joined.error)
    lines.push(`writing the joined workers' part failed (${joined.error.code ?? joined.error.message})`);
  if (lines.length)
    throw new CliError('CLI_LEDGER_INCOMPLETE', `--ledger-out ${file} is incomplete: ${lines.join('; ')}.`);
}

/**
 * A worker's degraded spans, from the attempts its ledger marks (the window is what the attempts
 * say), each with the outage it fell in; an outage no attempt met is not a degraded window.
 */
function degradedLines(r: Pick<Stopped, 'marked' | 'degraded'>, share: number): string[] {
  const iso = (ms: number) => new Date(ms).toISOString();
  return r.marked.map((span) => {
    const outage = r.degraded.find((w) => w.from <= span.to && (w.to === undefined || w.to >= span.from));
    const why = !outage
      ? ''
      : outage.code === 'SIM_QUOTA_STATE_LOST'
        ? `; Redis lost the shared quota state at ${iso(outage.from)} (SIM_QUOTA_STATE_LOST), so it decided alone for the longest window after`
        : `; Redis did not answer from ${iso(outage.from)} ${outage.to === undefined ? 'to the end' : `for ${Math.round(outage.to - outage.from)} ms`} (${outage.reason})`;
    return `${span.attempts} attempts decided without Redis, arriving from ${iso(span.from)} to ${iso(span.to)}: it enforced 1/${share} of each limit alone${why}`;
  });
}
