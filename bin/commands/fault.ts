import { parse } from 'yaml';
import { CONTROL_PREFIX } from '../../simulator/scenario-index.js';
import { CliError } from '../errors.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';
import type { PageFault } from '../dashboard/dashboard-logic.js';

/** Options of `throttlelab fault list|add|update|enable|disable|rm`. */
export interface FaultOptions {
  action: 'list' | 'add' | 'update' | 'enable' | 'disable' | 'rm';
  /** The simulator's origin, e.g. http://127.0.0.1:4000. */
  sim: string;
  /** add: the fault, as YAML or JSON (a scenario's `faults` entry); the others: its id. */
  arg?: string;
  /** update: the fields to change, as YAML or JSON. */
  patch?: string;
  /** list: print JSON. */
  json?: boolean;
}

/** A fault as the control API lists it: the dashboard's row, `enabled` absent from older simulators. */
type FaultRow = Omit<PageFault, 'enabled'> & { enabled?: boolean };

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

/** When a fault acts, in words, at `now` (epoch ms). */
function when(f: FaultRow, now: number): string {
  const state = f.active
    ? `ACTIVE, ${f.endAt === null ? 'until removed' : `${Math.max(0, Math.round((f.endAt - now) / 1000))} s left`}`
    : f.startAt > now
      ? `starts in ${Math.round((f.startAt - now) / 1000)} s`
      : f.endAt === null || f.endAt > now
        ? 'in its window'
        : 'ended';
  return f.enabled === false ? `DISABLED, ${state}` : state;
}

async function list(io: Io, sim: string, asJson: boolean): Promise<ExitCode> {
  const res = await call(io, sim, 'GET', '/faults');
  if (!res.ok) await refused('fault list', res);
  const { faults } = (await res.json()) as { faults: FaultRow[] };
  const health = (await (await call(io, sim, 'GET', '/health')).json()) as { startedAt: number; uptimeMs: number };
  const now = health.startedAt + health.uptimeMs;
  if (asJson) {
    // As the control API lists them, with the time each active one has left (null: until removed).
    const rows = faults.map((f) => ({
      ...f,
      timeLeftMs: f.active ? (f.endAt === null ? null : Math.max(0, Math.round(f.endAt - now))) : 0,
    }));
    io.out(JSON.stringify({ now, faults: rows }, null, 2));
    return EXIT.OK;
  }
  if (faults.length === 0) io.out('no faults on the timeline');
  for (const f of faults) io.out(`${f.id}  ${f.kind}  ${f.origin}  ${when(f, now)}  ${f.applied} applied`);
  return EXIT.OK;
}

/** `fault add`'s and `fault update`'s argument: YAML or JSON. */
function readSpec(action: string, text: string): unknown {
  try {
    return parse(text, { maxAliasCount: 0 });
  } catch (error) {
    throw new CliError('CLI_USAGE', `fault ${action}: not YAML or JSON: ${(error as Error).message.split('\n')[0]}`);
  }
}

const USAGE: Record<Exclude<FaultOptions['action'], 'list'>, string> = {
  add: "fault add: give the fault, e.g. '{ id: storm, kind: status, status: 429, for: 30s }'.",
  rm: 'fault rm: give the id of the fault to remove (fault list shows them).',
  update: "fault update: give the id and the fields to change, e.g. fault update storm '{ status: 503, for: 1m }'.",
  enable: 'fault enable: give the id of the fault to turn on (fault list shows them).',
  disable: 'fault disable: give the id of the fault to turn off (fault list shows them).',
};

/** Changes fault `id` with a PATCH (fields, or `enabled`) and says what it is now. */
async function patch(io: Io, sim: string, action: string, id: string, body: unknown): Promise<ExitCode> {
  const res = await call(io, sim, 'PATCH', `/faults/${encodeURIComponent(id)}`, body);
  if (!res.ok) await refused(`fault ${action} ${id}`, res);
  const { fault: f } = (await res.json()) as { fault: FaultRow };
  const verb = { update: 'updated', enable: 'enabled', disable: 'disabled' }[action];
  io.out(`${verb} ${f.id} (${f.kind}${f.enabled === false ? ', disabled' : ''})`);
  return EXIT.OK;
}

/** Lists, adds, updates, enables, disables or removes the live faults of a running simulator through its control API. */
export async function fault(options: FaultOptions, io: Io): Promise<ExitCode> {
  const { sim, action } = options;
  if (action === 'list') return list(io, sim, options.json ?? false);
  if (!options.arg || (action === 'update' && !options.patch)) throw new CliError('CLI_USAGE', USAGE[action]);
  if (action === 'update') return patch(io, sim, action, options.arg, readSpec(action, options.patch!));
  if (action === 'enable' || action === 'disable')
    return patch(io, sim, action, options.arg, { enabled: action === 'enable' });
  if (action === 'add') {
    const res = await call(io, sim, 'POST', '/faults', readSpec(action, options.arg));
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
