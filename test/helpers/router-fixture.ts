import { RouterConfigSchema, type RouterConfig } from '../../router/config/schema.js';
import { Router, type RouterDeps } from '../../router/router.js';
import type { Served } from './serve.js';

/** Builds a router config whose providers are the simulator's, keys passed through env variables. */
export function routerConfigFor(
  served: Served,
  overrides: Record<string, unknown> = {},
  only?: string[],
): { config: RouterConfig; env: Record<string, string> } {
  const env: Record<string, string> = {};
  const providers = served.sim
    .endpoints(served.origin)
    .filter((e) => !only || only.includes(e.id))
    .map((e) => {
      const spec = served.sim.scenario.providers.find((p) => p.id === e.id)!;
      return {
        id: e.id,
        vendor: e.vendor === 'ratelimit-draft' ? 'openai-compatible' : e.vendor,
        baseUrl: e.vendor === 'vertex-ai' ? `${e.baseUrl}/v1/projects/throttlelab/locations/us-central1` : e.baseUrl,
        ...(e.vendor === 'azure-openai' ? { apiVersion: '2024-10-21' } : {}),
        keys: spec.keys.map((k) => {
          const name = `KEY_${e.id}_${k.id}`.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
          env[name] = k.value!;
          return { id: k.id, env: name };
        }),
        models: e.models,
      };
    });
  const config = RouterConfigSchema.parse({ version: 1, providers, ...overrides });
  return { config, env };
}

/** A router over the simulator's providers. */
export function routerFor(
  served: Served,
  overrides: Record<string, unknown> = {},
  deps: Partial<RouterDeps> = {},
  only?: string[],
): Router {
  const { config, env } = routerConfigFor(served, overrides, only);
  return new Router(config, { env, seed: 3, ...deps });
}
