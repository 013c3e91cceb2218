import type { ProviderEndpoint } from '../../simulator/index.js';

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
