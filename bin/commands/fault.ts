import { parse } from 'yaml';
import { CONTROL_PREFIX } from '../../simulator/index.js';
import { CliError } from '../errors.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';

/** Options of `throttlelab fault list|add|rm`. */
export interface FaultOptions {
  action: 'list' | 'add' | 'rm';
  /** The simulator's origin, e.g. http://127.0.0.1:4000. */
  sim: string;
  /** add: the fault, as YAML or JSON (a scenario's `faults` entry); rm: its id. */
  arg?: string;
}

interface FaultRow {
  id: string;
  kind: string;
  origin: string;
  startAt: number;
  endAt: number | null;
  active: boolean;
  applied: number;
}

async function call(io: Io, sim: string, method: string, path: string, body?: unknown): Promise<Response> {
  const url = new URL(`${CONTROL_PREFIX}${path}`, sim);
  const token = io.env.THROTTLELAB_CONTROL_TOKEN;
  try {
    return await fetch(url, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    throw new CliError(
      'CLI_SIMULATOR_UNREACHABLE',
      `--sim ${sim}: no simulator answered (${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}). Start one with throttlelab simulate.`,
    );
  }
}

async function refused(what: string, res: Response): Promise<never> {
  const body = (await res.json().catch(() => ({}))) as { error?: { message?: string; issues?: string[] } };
  const issues = body.error?.issues ?? [];
  throw new CliError(
    'CLI_FAULT_REFUSED',
    `${what}: the simulator answered ${res.status}: ${body.error?.message ?? res.statusText}${issues.length ? `\n${issues.map((i) => `  ${i}`).join('\n')}` : ''}`,
  );
}

/** Lists, adds or removes the live faults of a running simulator through its control API. */
export async function fault(options: FaultOptions, io: Io): Promise<ExitCode> {
  const sim = options.sim;
  if (options.action === 'list') {
    const res = await call(io, sim, 'GET', '/faults');
    if (!res.ok) await refused('fault list', res);
    const { faults } = (await res.json()) as { faults: FaultRow[] };
    const health = (await (await call(io, sim, 'GET', '/health')).json()) as { startedAt: number; uptimeMs: number };
    const now = health.startedAt + health.uptimeMs;
    if (faults.length === 0) io.out('no faults on the timeline');
    for (const f of faults) {
      const when = f.active
        ? `ACTIVE, ${f.endAt === null ? 'until removed' : `${Math.max(0, Math.round((f.endAt - now) / 1000))} s left`}`
        : f.startAt > now
          ? `starts in ${Math.round((f.startAt - now) / 1000)} s`
          : 'ended';
      io.out(`${f.id}  ${f.kind}  ${f.origin}  ${when}  ${f.applied} applied`);
    }
    return EXIT.OK;
  }
  if (!options.arg)
    throw new CliError(
      'CLI_USAGE',
      options.action === 'add'
        ? "fault add: give the fault, e.g. '{ id: storm, kind: status, status: 429, for: 30s }'."
        : 'fault rm: give the id of the fault to remove (fault list shows them).',
    );
  if (options.action === 'add') {
    let spec: unknown;
    try {
      spec = parse(options.arg, { maxAliasCount: 0 });
    } catch (error) {
      throw new CliError('CLI_USAGE', `fault add: not YAML or JSON: ${(error as Error).message.split('\n')[0]}`);
    }
    const res = await call(io, sim, 'POST', '/faults', spec);
    if (!res.ok) await refused('fault add', res);
    const { fault: added } = (await res.json()) as { fault: FaultRow };
    io.out(
      `added ${added.id} (${added.kind})${added.endAt === null ? '' : `, for ${Math.round((added.endAt - added.startAt) / 1000)} s`}`,
    );
    return EXIT.OK;
  }
  const res = await call(io, sim, 'DELETE', `/faults/${encodeURIComponent(options.arg)}`);
  if (!res.ok) await refused(`fault rm ${options.arg}`, res);
  io.out(`removed ${options.arg}`);
  return EXIT.OK;
}
