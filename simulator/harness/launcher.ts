import type { ProviderEndpoint } from '../simulator.js';

/** A router ready to take load. */
export interface RouterLaunch {
  /** Its OpenAI-compatible base URL, e.g. `http://127.0.0.1:8080/v1`. */
  baseUrl: string;
  /** How the report names it. */
  description: string;
  stop(): Promise<void>;
}

/** What a router needs to reach the simulated providers. */
export interface LaunchContext {
  endpoints: ProviderEndpoint[];
  simOrigin: string;
  seed: number;
  /** `THROTTLELAB_*` variables naming every provider's base URL, vendor, models and keys. */
  env: Record<string, string>;
}

/** Starts (or reaches) the router under test. */
export type RouterLauncher = (ctx: LaunchContext) => Promise<RouterLaunch>;

/** An id as it appears in an environment variable name. */
export const envName = (id: string) => id.toUpperCase().replace(/[^A-Z0-9]/g, '_');

/**
 * The environment a router under test gets: `THROTTLELAB_PROVIDERS` (ids), and per provider
 * `THROTTLELAB_<ID>_BASE_URL`, `_VENDOR`, `_MODELS` (comma-separated), `_API_KEY` (its first
 * key), `_API_KEYS`, and `_KEY_<KEYID>` for each key. Keys here are the scenario's simulated keys, never real ones.
 */
export function providerEnv(endpoints: ProviderEndpoint[], simOrigin: string, keyValues: (provider: string, key: string) => string | undefined): Record<string, string> {
  const env: Record<string, string> = { THROTTLELAB_SIMULATOR_URL: simOrigin, THROTTLELAB_PROVIDERS: endpoints.map((e) => e.id).join(',') };
  for (const e of endpoints) {
    const p = `THROTTLELAB_${envName(e.id)}`;
    env[`${p}_BASE_URL`] = e.baseUrl;
    env[`${p}_VENDOR`] = e.vendor;
    env[`${p}_MODELS`] = e.models.join(',');
    const keys: string[] = [];
    for (const k of e.keys) {
      const value = keyValues(e.id, k.id);
      if (value === undefined) continue;
      keys.push(value);
      env[`${p}_KEY_${envName(k.id)}`] = value;
    }
    if (keys[0]) env[`${p}_API_KEY`] = keys[0];
    env[`${p}_API_KEYS`] = keys.join(',');
  }
  return env;
}
