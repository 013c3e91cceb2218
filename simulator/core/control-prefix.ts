/** The control API's path prefix, outside every provider's namespace. */
export const CONTROL_PREFIX = '/_throttlelab';
