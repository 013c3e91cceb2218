import type { HarnessErrorCode } from '../harness/index.js';
import type { RouterErrorCode } from '../router/index.js';
import type { SimErrorCode } from '../simulator/index.js';

// The packages brand their errors with these symbols; reading the brands directly keeps the
// boundary from loading a package just to recognise its errors (`throttlelab router` loads only the router).
const SIM = Symbol.for('throttlelab.simulator.error');
const ROUTER = Symbol.for('throttlelab.router.error');
const HARNESS = Symbol.for('throttlelab.harness.error');

type Branded = { code: string; message: string; details?: unknown };
const branded = (e: unknown, brand: symbol): e is Branded => typeof e === 'object' && e !== null && brand in e;

/** Every error code of the command line itself. */
export type CliErrorCode =
  | 'CLI_USAGE'
  | 'CLI_OUTPUT_UNWRITABLE'
  | 'CLI_NO_SCENARIOS'
  | 'CLI_SIMULATOR_UNREACHABLE'
  | 'CLI_FAULT_REFUSED'
  | 'CLI_EVIDENCE_INVALID'
  | 'CLI_LEDGER_INCOMPLETE';

const BRAND = Symbol.for('throttlelab.cli.error');

/** A mistake in how a command was called, or in a file or folder it was given; always the user's to fix. */
export class CliError extends Error {
  readonly code: CliErrorCode;
  readonly [BRAND] = true;

  constructor(code: CliErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'CliError';
    this.code = code;
  }
}

/** Tells whether `e` is a command-line error, across duplicate module copies. */
export function isCliError(e: unknown): e is CliError {
  return typeof e === 'object' && e !== null && BRAND in e;
}

// Codes that mean the user's input or environment is at fault; any other code is our bug.
const USER_SIM_CODES: ReadonlySet<SimErrorCode> = new Set(['SIM_SERVER_START_FAILED', 'SIM_REDIS_UNREACHABLE']);
const USER_ROUTER_CODES: ReadonlySet<RouterErrorCode> = new Set([
  'ROUTER_CONFIG_INVALID',
  'ROUTER_SERVER_START_FAILED',
]);
const USER_HARNESS_CODES: ReadonlySet<HarnessErrorCode> = new Set([
  'HARNESS_ROUTER_UNREACHABLE',
  'HARNESS_ROUTER_START_FAILED',
  'HARNESS_REPORT_INVALID',
  'HARNESS_REPORT_UNWRITABLE',
  'HARNESS_SCENARIO_INVALID',
  'HARNESS_REDIS_UNAVAILABLE',
  'HARNESS_LOAD_GROUP_MISSING',
  'HARNESS_LOAD_GROUP_FULL',
  'HARNESS_LOAD_GROUP_TIMEOUT',
  'HARNESS_LOAD_WORKER_FAILED',
]);

// System calls whose failures are the environment's (a port taken, a folder not writable, a host
// that does not resolve), not a defect of ours.
const ENVIRONMENT_SYSCALLS = new Set([
  'listen',
  'bind',
  'open',
  'mkdir',
  'write',
  'connect',
  'getaddrinfo',
  'spawn',
  'scandir',
  'access',
]);

/** Whether an error says the user stopped the command before it had anything to show (exit 130, not 2). */
export function isInterrupted(e: unknown): boolean {
  return branded(e, HARNESS) && e.code === 'HARNESS_INTERRUPTED';
}

/** A user-caused error, told apart from a bug: the code and its one-line message. */
export interface KnownError {
  code: string;
  message: string;
  /** Extra lines worth showing (a router's last output). */
  detail?: string;
}

/** Classifies an error that reached the CLI's boundary: known (the user's to fix, exit 2) or undefined (a bug, exit 70). */
export function knownError(e: unknown): KnownError | undefined {
  if (isCliError(e)) return { code: e.code, message: e.message };
  if (branded(e, HARNESS) && USER_HARNESS_CODES.has(e.code as HarnessErrorCode)) {
    const detail =
      typeof e.details === 'object' && e.details !== null ? (e.details as { output?: string }).output : undefined;
    return { code: e.code, message: e.message, ...(detail ? { detail } : {}) };
  }
  if (branded(e, SIM) && USER_SIM_CODES.has(e.code as SimErrorCode)) return { code: e.code, message: e.message };
  if (branded(e, ROUTER) && USER_ROUTER_CODES.has(e.code as RouterErrorCode))
    return { code: e.code, message: e.message };
  const sys = e as NodeJS.ErrnoException;
  if (sys instanceof Error && typeof sys.code === 'string' && sys.syscall && ENVIRONMENT_SYSCALLS.has(sys.syscall)) {
    const where = sys.path ?? (sys as { address?: string }).address ?? (sys as { hostname?: string }).hostname ?? '';
    return { code: `SYSTEM_${sys.code}`, message: `Failed to ${sys.syscall}${where ? ` ${where}` : ''}: ${sys.code}.` };
  }
  return undefined;
}
