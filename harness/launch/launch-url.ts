import { HarnessError } from '../errors.js';
import type { RouterLaunch } from './launcher.js';

/** A router that is already running: checks that it answers, and leaves it running afterwards. */
export async function launchUrl(url: string): Promise<RouterLaunch> {
  const baseUrl = url.replace(/\/+$/, '');
  try {
    const res = await fetch(`${baseUrl}/models`, { signal: AbortSignal.timeout(5000) });
    await res.arrayBuffer();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new HarnessError(
      'HARNESS_ROUTER_UNREACHABLE',
      `Failed to reach the router at ${baseUrl}: ${reason}. Start it first, pointed at the simulator, or check the URL.`,
    );
  }
  return { baseUrl, description: `url: ${baseUrl}`, stop: async () => {} };
}
