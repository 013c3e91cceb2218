import type { ProviderAdapter } from '../adapters/adapter.js';
import type { ProviderConfig } from '../config/schema.js';
import { Ewma } from '../core/ewma.js';
import type { Target } from '../core/types.js';

/** A target ready to call: its provider, key, model, adapter and running statistics. */
export interface TargetRuntime extends Target {
  providerConfig: ProviderConfig;
  modelConfig: ProviderConfig['models'][number];
  /** This key's value, read from the environment; only ever sent to this provider. */
  apiKey: string;
  adapter: ProviderAdapter;
  /**
   * Circuit scopes: the provider (overload, failures), the key (rejected keys, spent quotas) and
   * the key's model (rate limits, which vendors count per model).
   */
  providerScope: string;
  keyScope: string;
  limitScope: string;
  /** All three, in the order a request passes them. */
  scopes: readonly string[];
  ttft: Ewma;
  latency: Ewma;
  /** A target the provider said does not exist (404) stays out until then. */
  disabledUntil: number;
}
