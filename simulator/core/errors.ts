/** Every error code the simulator raises at its public edge. */
export type SimErrorCode =
  'SIM_SERVER_START_FAILED' | 'SIM_UNHANDLED_REQUEST' | 'SIM_REDIS_UNREACHABLE' | 'SIM_FAULT_NOT_SHARED';

const BRAND = Symbol.for('throttlelab.simulator.error');

/** The simulator's one error class: a literal code, a message, optional details and cause. */
export class SimError<C extends SimErrorCode = SimErrorCode> extends Error {
  readonly code: C;
  readonly details: unknown;
  readonly [BRAND] = true;

  constructor(code: C, message: string, options: { details?: unknown; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'SimError';
    this.code = code;
    this.details = options.details;
  }
}

/** Tells whether `e` is a simulator error (optionally with `code`), across duplicate module copies. */
export function isSimError<C extends SimErrorCode>(e: unknown, code?: C): e is SimError<C> {
  return typeof e === 'object' && e !== null && BRAND in e && (code === undefined || (e as SimError).code === code);
}
