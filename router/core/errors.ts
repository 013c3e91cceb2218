/** Every error code the router raises at its public edge. */
export type RouterErrorCode = 'ROUTER_CONFIG_INVALID' | 'ROUTER_SERVER_START_FAILED';

const BRAND = Symbol.for('throttlelab.router.error');

/** The router's one error class: a literal code, a message, optional details and cause. */
export class RouterError<C extends RouterErrorCode = RouterErrorCode> extends Error {
  readonly code: C;
  readonly details: unknown;
  readonly [BRAND] = true;

  constructor(code: C, message: string, options: { details?: unknown; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'RouterError';
    this.code = code;
    this.details = options.details;
  }
}

/** Tells whether `e` is a router error (optionally with `code`), across duplicate module copies. */
export function isRouterError<C extends RouterErrorCode>(e: unknown, code?: C): e is RouterError<C> {
  return typeof e === 'object' && e !== null && BRAND in e && (code === undefined || (e as RouterError).code === code);
}
