import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../errors.js';
import type { ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import { groupWithdrawn, readSimulateGroup } from './simulate-group.js';
import { serveAsWorker } from './simulate-worker.js';

/** Options of `throttlelab simulate --join`. */
export interface SimulateJoinOptions {
  join: string;
  /** The group's key prefix (default: the newest group on that Redis). */
  group?: string;
  port?: number;
  host?: '127.0.0.1' | '::1';
  ledgerOut?: string;
}

/**
 * A worker of a running `simulate --workers` group, started on another host: it serves the
 * group's scenario on a port of its own, every quota decided through the group's Redis and key
 * prefix, and stops when the group's primary stops (or on Ctrl-C). Its attempts reach the
 * primary's ledger through the group's Redis stream (and its own `--ledger-out`, if given).
 */
export async function simulateJoin(o: SimulateJoinOptions, io: Io): Promise<ExitCode> {
  const group = await readSimulateGroup(o.join, o.group);
  if (!group)
    throw new CliError(
      'CLI_USAGE',
      `no simulate group is open on ${o.join.replace(/\/\/[^@/]*@/, '//***@')}${o.group ? ` under ${o.group}` : ''}; start simulate --workers N --redis-url first.`,
    );
  const dir = await mkdtemp(join(tmpdir(), 'throttlelab-join-'));
  try {
    const scenario = join(dir, 'scenario.yaml');
    await writeFile(scenario, group.scenarioText);
    const stop = new AbortController();
    io.stop.addEventListener('abort', () => stop.abort(), { once: true });
    return await serveAsWorker(
      {
        scenario,
        seed: group.seed,
        port: o.port ?? 0,
        ...(o.host ? { host: o.host } : {}),
        redisUrl: o.join,
        prefix: group.prefix,
        workerId: `j-${randomUUID().slice(0, 8)}`,
        forked: group.workers,
        share: group.workers + 1,
        ...(Number.isFinite(group.faultsFrom) ? { faultsFrom: group.faultsFrom } : {}),
        ...(o.ledgerOut ? { ledgerPart: o.ledgerOut } : {}),
      },
      io,
      (m) => {
        if (m.type === 'ready')
          io.out(
            `simulate: joined group ${group.prefix} (seed ${group.seed}); listening on ${m.origin}; stops with its group or Ctrl-C`,
          );
        if (m.type === 'stopped') {
          io.out(`simulate: stopped after ${m.attempts} attempts`);
          if (m.unsent)
            io.err(
              `simulate: ${m.unsent} of them did not reach the group's ledger stream (Redis did not take them in time); the primary reports them missing`,
            );
        }
      },
      groupWithdrawn(o.join, group.prefix, stop.signal).finally(() => stop.abort()),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
