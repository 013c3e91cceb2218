import { CliError } from '../errors.js';
import { loadRunScenarioFile } from '../../harness/index.js';
import {
  createSimulator,
  formatDurationShort,
  startSimulatorServer,
  startLoopLagMonitor,
  type Simulator,
} from '../../simulator/index.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { openLedgerFile } from '../ledger-file.js';
import { printBanner } from './simulate-banner.js';
import { prepareTls } from './simulate-tls.js';
import type { Io } from '../io.js';

/** Options of `throttlelab simulate`. */
export interface SimulateOptions {
  scenario: string;
  seed?: number;
  port?: number;
  host?: '127.0.0.1' | '::1';
  /** Stop by itself after this many ms. */
  durationMs?: number;
  /** Stream every ledger row to this JSONL file as it ends. */
  ledgerOut?: string;
  /** Serve the live dashboard on loopback. */
  dashboard?: boolean;
  dashboardPort?: number;
  /** Serve TLS (ALPN h2, http/1.1) with a certificate from a throwaway CA. */
  tls?: boolean;
  /** Where `tls` writes the CA certificate (default: a fresh temporary folder). */
  tlsCaOut?: string;
}

/** A one-line account of the attempts served, per provider and status. */
export function summarizeAttempts(sim: Simulator): string[] {
  const counts = new Map<string, Map<number, number>>();
  for (const row of sim.ledger.rowsIterator()) {
    const byStatus = counts.get(row.provider) ?? new Map<number, number>();
    byStatus.set(row.status, (byStatus.get(row.status) ?? 0) + 1);
    counts.set(row.provider, byStatus);
  }
  return [...counts].map(
    ([provider, byStatus]) =>
      `  ${provider}: ${[...byStatus]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${n}×${s === 0 ? 'no status' : s}`)
        .join(', ')}`,
  );
}

/**
 * Serves a scenario's simulated providers until stopped: prints each provider's base URL and the
 * environment lines an SDK or router needs, then waits.
 */
export async function simulate(options: SimulateOptions, io: Io): Promise<ExitCode> {
  const loaded = await loadRunScenarioFile(options.scenario, io.env);
  if (!loaded.ok) {
    io.err(loaded.report);
    return EXIT.BAD_INPUT;
  }
  const scenario = loaded.scenario;
  const seed = options.seed ?? scenario.seed ?? io.randomSeed();
  const sim = createSimulator(scenario, { seed, env: io.env });
  const ledgerFile = options.ledgerOut
    ? await openLedgerFile(options.ledgerOut, (error) =>
        io.err(
          `simulate: writing ${options.ledgerOut} failed (${error.code ?? error.message}); later attempts are not written. Still serving.`,
        ),
      )
    : undefined;
  if (ledgerFile) sim.ledger.addSink((row) => ledgerFile.write(row));
  const controlToken = io.env.THROTTLELAB_CONTROL_TOKEN || undefined;
  const tls = options.tls ? await prepareTls(options.tlsCaOut) : undefined;
  const server = await startSimulatorServer(sim, {
    host: options.host,
    port: options.port,
    controlToken,
    tls: tls && { cert: tls.cert, key: tls.key },
    onError: (e) => io.err(`simulator: survived an error: ${(e as Error).message}`),
  });

  const dashboard = options.dashboard
    ? await (
        await import('../dashboard/serve-dashboard.js')
      ).startDashboard({ target: () => server.origin, controlToken, port: options.dashboardPort })
    : undefined;
  printBanner(io, {
    sim,
    seed,
    origin: server.origin,
    controlToken,
    caFile: tls?.caFile,
    dashboard: dashboard?.origin,
    durationMs: options.durationMs,
  });

  // The simulator timestamps every arrival and paces every stream on this loop: its delay bounds how
  // far the ledger's times can be trusted, as `run` reports for the harness (`harness lag`).
  const lag = startLoopLagMonitor();
  await new Promise<void>((resolve) => {
    const timer = options.durationMs !== undefined ? setTimeout(resolve, options.durationMs) : undefined;
    io.stop.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
  // Closing ends every attempt still in flight (recorded as `shutdown`), so the file is complete.
  await dashboard?.close();
  await server.close();
  const written = await ledgerFile?.close();
  io.out('');
  io.out(
    `stopped after ${formatDurationShort(sim.clock.now() - sim.startedAt)}: ${sim.ledger.size} attempts${sim.ledger.size ? ':' : '.'}`,
  );
  for (const line of summarizeAttempts(sim)) io.out(line);
  const seen = lag.stop();
  io.out(
    `simulator lag: event loop p99 ${Math.round(seen.p99Ms)} ms (max ${Math.round(seen.maxMs)} ms)${seen.p99Ms > 50 ? ': the machine was busy; ledger times may be late by about this much' : ''}`,
  );
  if (ledgerFile) checkLedgerFile(options.ledgerOut!, written!, sim.ledger.size - sim.ledger.inFlight);
  if (ledgerFile) io.out(`ledger: ${written!.rows} attempts written to ${options.ledgerOut}`);
  return EXIT.OK;
}

/**
 * Throws unless the file holds every attempt that ended (`ended`): a write error is the user's
 * disk (exit 2, naming the file); a shortfall without one is our bug, never silent.
 */
export function checkLedgerFile(
  file: string,
  written: { rows: number; error?: NodeJS.ErrnoException },
  ended: number,
): void {
  const missing = Math.max(0, ended - written.rows);
  const incomplete =
    missing > 0
      ? `the file is incomplete: ${missing} of ${ended} attempts are not in it`
      : 'the file may be incomplete';
  if (written.error)
    throw new CliError(
      'CLI_OUTPUT_UNWRITABLE',
      `--ledger-out ${file}: writing failed (${written.error.code ?? written.error.message}); ${incomplete}.`,
      { cause: written.error },
    );
  if (missing > 0) throw new Error(`--ledger-out ${file}: ${incomplete}, with no write error: a throttlelab bug.`);
}
