import { loadRunScenarioFile } from '../../harness/index.js';
import {
  appendRow,
  connectRedisQuota,
  degradedSpans,
  createSimulator,
  connectFaultSync,
  followLedgerStream,
  isGroupWorker,
  Ledger,
  LedgerStreamTally,
  publishLedgerStream,
  SharedQuota,
  startSimulatorServer,
  type DegradedSpan,
  type DegradedWindow,
  type LedgerRow,
} from '../../simulator/index.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import { openLedgerFile } from '../ledger-file.js';

/** What the primary tells each worker it forks (as JSON in THROTTLELAB_WORKER). */
export interface WorkerConfig {
  scenario: string;
  seed: number;
  port: number;
  host?: '127.0.0.1' | '::1';
  redisUrl: string;
  /** Keeps this run's quota keys apart from any other on the same Redis; names its ledger stream. */
  prefix: string;
  /** This worker's name in the group's ledger stream: `w<i>` when forked, `j-<id>` when joined. */
  workerId: string;
  /** The group's forked workers, `w1`…`w<forked>`; any other id in its ledger stream but a joined one is refused. */
  forked: number;
  /** This worker's part of `--ledger-out`, merged by the primary at the end. */
  ledgerPart?: string;
  /** Workers sharing the limits: while Redis does not answer, each enforces 1/share of every limit. */
  share: number;
  /** The group's start (epoch ms), which the scenario's fault times count from on every worker. */
  faultsFrom?: number;
}

/** How long one quota decision may wait for Redis before this worker decides alone (ms). */
const REDIS_CALL_TIMEOUT_MS = 250;

/** Messages between the primary and its workers. */
export type WorkerMessage =
  | { type: 'ready'; origin: string }
  | {
      type: 'stopped';
      attempts: number;
      counts: Array<[string, number, number]>;
      /** When Redis did not answer and this worker enforced its share of each limit alone. */
      degraded: DegradedWindow[];
      /** This worker's attempts marked `degraded` in the ledger, in runs: what the report's window is made of. */
      marked: DegradedSpan[];
      /** Attempts that never reached the group's ledger stream (Redis did not take them in time). */
      unsent: number;
    }
  | { type: 'stop' };

/**
 * One worker of `simulate --workers`: serves the scenario on the port the workers share, its
 * quotas decided through Redis, its attempts written to its own ledger part; stops when the
 * primary says so (or goes away), not on Ctrl-C, which the primary handles for all.
 */
export async function serveAsWorker(
  config: WorkerConfig,
  io: Io,
  send: (m: WorkerMessage) => void,
  stopped: Promise<void>,
): Promise<ExitCode> {
  const loaded = await loadRunScenarioFile(config.scenario, io.env);
  if (!loaded.ok) {
    io.err(loaded.report);
    return EXIT.BAD_INPUT;
  }
  const runner = await connectRedisQuota({
    url: config.redisUrl,
    timeoutMs: REDIS_CALL_TIMEOUT_MS,
    onError: (e) => io.err(`simulate worker: a charge after the fact failed: ${(e as Error).message}`),
  });
  const shared = new SharedQuota(runner, config.prefix, {
    share: config.share,
    onWindow: (w) =>
      io.err(
        w.code === 'SIM_QUOTA_STATE_LOST'
          ? w.to === undefined
            ? `simulate worker ${process.pid}: ${w.reason}; enforcing 1/${config.share} of each limit alone, less what it admitted, for the longest window (degraded)`
            : `simulate worker ${process.pid}: deciding through Redis again; degraded for ${Math.round(w.to - w.from)} ms after the state was lost`
          : w.to === undefined
            ? `simulate worker ${process.pid}: Redis did not answer (${w.reason}); enforcing 1/${config.share} of each limit alone (degraded)`
            : `simulate worker ${process.pid}: Redis answers again; degraded for ${Math.round(w.to - w.from)} ms`,
      ),
  });
  const sim = createSimulator(loaded.scenario, {
    seed: config.seed,
    env: io.env,
    sharedQuota: shared,
  });
  // One timeline for the group: the scenario's faults count from the primary's start, not this worker's.
  if (config.faultsFrom !== undefined) sim.startFaultsAt(config.faultsFrom);
  const faults = await connectFaultSync({
    url: config.redisUrl,
    prefix: config.prefix,
    apply: (op, id, entry) => sim.applyFaultEntry(op, id, entry),
    now: () => sim.clock.now(),
    warn: (line) => io.err(`simulate worker ${config.workerId}: ${line}`),
  });
  const ledgerFile = config.ledgerPart
    ? await openLedgerFile(config.ledgerPart, (e) => io.err(`simulate worker: writing its ledger failed (${e.code})`))
    : undefined;
  if (ledgerFile) sim.ledger.addSink((row) => ledgerFile.write(row));
  const group = followGroupLedger(config, io);
  sim.ledger.addSink((row) => group.write(row));
  const server = await startSimulatorServer(sim, {
    controlLedger: group.ledger,
    faultChannel: faults,
    host: config.host,
    port: config.port,
    controlToken: io.env.THROTTLELAB_CONTROL_TOKEN || undefined,
    onError: (e) => io.err(`simulate worker: survived an error: ${(e as Error).message}`),
  });
  send({ type: 'ready', origin: server.origin });
  await stopped;
  await server.close();
  await ledgerFile?.close();
  const { unsent } = await group.close();
  await faults.close();
  await runner.close();
  const counts = new Map<string, number>();
  for (const row of sim.ledger.rowsIterator()) {
    const key = `${row.provider}\u0000${row.status}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  send({
    type: 'stopped',
    attempts: sim.ledger.size,
    degraded: shared.windows,
    marked: degradedSpans(sim.ledger.rowsIterator()),
    unsent,
    counts: [...counts].map(([k, n]) => {
      const [provider, status] = k.split('\u0000');
      return [provider!, Number(status), n];
    }),
  });
  return EXIT.OK;
}

/**
 * The group's ledger as this worker sees it: its own attempts as they end, and every other
 * worker's as they arrive on the group's Redis stream (where its own go too), so that any
 * worker's control API answers for all of them.
 */
function followGroupLedger(config: WorkerConfig, io: Io) {
  const ledger = new Ledger();
  const publisher = publishLedgerStream({
    url: config.redisUrl,
    prefix: config.prefix,
    worker: config.workerId,
    onError: (e) =>
      io.err(
        `simulate worker ${config.workerId}: adding to the group's ledger stream failed (${(e as Error).message}); its attempts wait and are sent again`,
      ),
  });
  const others = new LedgerStreamTally();
  const refused = { rows: 0, warned: new Set<string>() };
  const refuse = (worker: string, rows: number, reason: string) => {
    refused.rows += rows;
    if (refused.warned.has(worker) || refused.warned.size >= 20) return;
    refused.warned.add(worker);
    io.err(
      `simulate worker ${config.workerId}: refused rows of "${worker}" read from the group's ledger stream (${reason}); later ones are counted`,
    );
  };
  const follower = followLedgerStream({
    url: config.redisUrl,
    prefix: config.prefix,
    isWorker: (worker) => isGroupWorker(worker, config.forked),
    // Its own rows are in the group ledger already, as they ended.
    ignore: (worker) => worker === config.workerId,
    onEntry(entry) {
      if (entry.kind === 'refused') return refuse(entry.worker, Math.max(1, entry.rows), entry.reason);
      if (entry.kind !== 'rows') return;
      const skip = others.accept(entry.worker, entry.first, entry.rows.length);
      let bad = 0;
      for (let i = skip; i < entry.rows.length; i++) {
        const row = entry.rows[i];
        if (row) appendRow(ledger, row);
        else bad++;
      }
      if (bad) refuse(entry.worker, bad, entry.refused[0]!);
    },
  });
  return {
    ledger,
    write(row: LedgerRow) {
      appendRow(ledger, row);
      publisher.write(row);
    },
    async close() {
      const published = await publisher.close();
      await follower.close();
      if (refused.rows)
        io.err(
          `simulate worker ${config.workerId}: refused ${refused.rows} rows of the group's ledger stream in all; they are not in its /ledger`,
        );
      return published;
    },
  };
}
