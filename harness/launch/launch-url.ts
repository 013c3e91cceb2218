import { request } from 'undici';
import { HarnessError } from '../errors.js';
import { redactSecrets } from './redact-secrets.js';
import type { RouterLaunch } from './launcher.js';

/**
 * A router that is already running: checks that it answers, and leaves it running afterwards.
 * undici's `request` rather than `fetch`, which refuses the "bad ports" of the fetch standard
 * (a router on port 9 would read as "bad port", not as the refused connection it is).
 */
export async function launchUrl(url: string): Promise<RouterLaunch> {
  const baseUrl = url.replace(/\/+$/, '');
  try {
    const res = await request(`${baseUrl}/models`, { signal: AbortSignal.timeout(5000) });
    await res.body.dump();
  } catch (error) {
    const e = error as { code?: string; name?: string; message?: string };
    const reason = e.name === 'TimeoutError' ? 'no answer within 5 s' : (e.code ?? e.message);
    throw new HarnessError(
      'HARNESS_ROUTER_UNREACHABLE',
      `Failed to reach the router at ${redactSecrets(baseUrl)}: ${reason}. Start it first, pointed at the simulator, or check the URL.`,
    );
  }
  return { baseUrl, description: `url: ${redactSecrets(baseUrl)}`, pids: () => [], stop: async () => {} };
}
