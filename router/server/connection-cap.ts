/**
 * Connections past the cap still accepted, each for one `/healthz` (anything else gets 503) and
 * closed after it: held client connections never leave a health probe nothing to connect with.
 */
export const HEALTH_RESERVE = 8;

// Descriptors the process holds besides client connections' own: listening sockets, Redis,
// evidence files, stdio, the runtime's own.
const BASELINE_FDS = 64;

/**
 * The most client connections the router keeps: `configured` (`server.maxConnections`), at most
 * what the open-files limit (`ulimit -n`, undefined where unknown or unlimited) leaves once the
 * baseline and the health reserve are set aside, halved since each client connection may hold an
 * upstream one. Past the limit, accept() fails (EMFILE) and `/healthz` with everything else.
 */
export function connectionCap(configured: number, openFilesLimit: number | undefined): number {
  if (openFilesLimit === undefined) return configured;
  const budget = Math.floor((openFilesLimit - BASELINE_FDS - HEALTH_RESERVE) / 2);
  return Math.max(1, Math.min(configured, budget));
}
