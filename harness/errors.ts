/** Every error code the harness raises at its public edge. */
export type HarnessErrorCode =
  /** A router URL that does not answer. */
  | 'HARNESS_ROUTER_UNREACHABLE'
  /** A router command that exited or never answered its ready path. */
  | 'HARNESS_ROUTER_START_FAILED'
  /** A report file that is not a throttlelab report. */
  | 'HARNESS_REPORT_INVALID'
  /** A report file the disk would not take (full, read-only); the message names it. */
  | 'HARNESS_REPORT_UNWRITABLE'
  /** A scenario that cannot be run as given (no load section, say). */
  | 'HARNESS_SCENARIO_INVALID'
  /** A fleet run needs a redis-server the harness could not start. */
  | 'HARNESS_REDIS_UNAVAILABLE'
  /** The user stopped the run before there was anything to judge. */
  | 'HARNESS_INTERRUPTED'
  /** A run in simulated time whose code under test waits on something simulated time does not drive. */
  | 'HARNESS_SIMULATION_STUCK'
  /** A peer router (Portkey) whose generated config can route none of a scenario's models. */
  | 'HARNESS_PEER_UNROUTABLE'
  /** A load worker named a load group that is not open (none started, or it expired). */
  | 'HARNESS_LOAD_GROUP_MISSING'
  /** A load worker joined a group whose segments were all taken. */
  | 'HARNESS_LOAD_GROUP_FULL'
  /** A load group whose workers did not join, start or finish in time. */
  | 'HARNESS_LOAD_GROUP_TIMEOUT'
  /** A load worker that could not send its segment: the load is incomplete. */
  | 'HARNESS_LOAD_WORKER_FAILED';

const BRAND = Symbol.for('throttlelab.harness.error');

/** The harness's one error class: a literal code, a message, optional details and cause. */
export class HarnessError<C extends HarnessErrorCode = HarnessErrorCode> extends Error {
  readonly code: C;
  readonly details: unknown;
  readonly [BRAND] = true;

  constructor(code: C, message: string, options: { details?: unknown; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'HarnessError';
    this.code = code;
    this.details = options.details;
  }
}

/** Tells whether `e` is a harness error (optionally with `code`), across duplicate module copies. */
export function isHarnessError<C extends HarnessErrorCode>(e: unknown, code?: C): e is HarnessError<C> {
  return typeof e === 'object' && e !== null && BRAND in e && (code === undefined || (e as HarnessError).code === code);
}
