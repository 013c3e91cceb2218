import { SimError } from '../core/errors.js';
import type { RouterLaunch } from './launcher.js';

/** A router that is already running: checks that it answers, and leaves it running afterwards. */
export async function launchUrl(url: string): Promise<RouterLaunch> {
  const baseUrl = url.replace(/\/+$/, '');
  try {
    const res = await fetch(`${baseUrl}/models`, { signal: AbortSignal.timeout(5000) });
    await res.arrayBuffer();
  } catch (error) {
    throw new SimError('SIM_INTERNAL', `Failed to reach the router at ${baseUrl}: ${(error as Error).message}. Start it first, pointed at the simulator.`);
  }
  return { baseUrl, description: `url: ${baseUrl}`, stop: async () => {} };
}
