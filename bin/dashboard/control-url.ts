import { CONTROL_PREFIX } from '../../simulator/index.js';

/**
 * Where the dashboard passes `/control/…` (`rawUrl`, as the request line has it) on to: the same
 * path under the simulator's control API at `target`, dot segments resolved (`..`, `%2e%2e`,
 * backslashes count as slashes), or undefined when the resolved path leaves the control API:
 * `/control/../openai/v1/models` would otherwise reach a provider with the control token added.
 */
export function controlUrl(rawUrl: string, target: string): URL | undefined {
  const url = new URL(`${CONTROL_PREFIX}${rawUrl.slice('/control'.length)}`, target);
  if (url.origin !== new URL(target).origin || !url.pathname.startsWith(`${CONTROL_PREFIX}/`)) return undefined;
  return url;
}
