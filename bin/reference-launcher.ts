import {
  Router,
  RouterConfigSchema,
  routerDirectHandler,
  routerFetchHandler,
  startRouterServer,
  type RouterConfig,
} from '../router/index.js';
import {
  keyVar,
  type LaunchContext,
  type RouterLauncher,
  type RunScenario as Scenario,
  type SimulatedRouterLauncher,
} from '../harness/index.js';
import { createInProcessTransport } from './in-process-transport.js';

type Issue = { code: string; path: Array<string | number>; message: string };

/** The reference router's config for a scenario: its `router.config`, with the simulator's providers. */
export function referenceConfig(
  scenario: Scenario,
  baseUrls: Record<string, string>,
): { ok: true; config: RouterConfig; raw: Record<string, unknown> } | { ok: false; issues: Issue[] } {
  const spec = scenario.router;
  const extra = spec.kind === 'reference' ? spec.config : {};
  for (const bad of ['version', 'providers', 'store'].filter((k) => k in extra)) {
    return {
      ok: false,
      issues: [
        {
          code: 'SCENARIO_INVALID_VALUE',
          path: ['router', 'config', bad],
          message:
            bad === 'store'
              ? 'the store is set by router.store (memory or redis; throttlelab starts the Redis); remove it'
              : `"${bad}" is set by throttlelab from the scenario's providers; remove it`,
        },
      ],
    };
  }
  const providers = scenario.providers.map((p) => ({
    id: p.id,
    // Every simulated vendor is a router vendor of the same name but the generic draft service.
    vendor: p.vendor === 'ratelimit-draft' ? 'openai-compatible' : p.vendor,
    // Vertex AI's base URL runs to the location; the simulator serves any project and location.
    baseUrl:
      p.vendor === 'vertex-ai'
        ? `${baseUrls[p.id] ?? 'http://127.0.0.1:1'}/v1/projects/throttlelab/locations/us-central1`
        : (baseUrls[p.id] ?? 'http://127.0.0.1:1'),
    ...(p.vendor === 'azure-openai' ? { apiVersion: '2024-10-21' } : {}),
    keys: p.keys.map((k) => ({ id: k.id, env: keyVar(p.id, k.id), ...(k.org !== undefined ? { org: k.org } : {}) })),
    models: p.models,
  }));
  const raw = { version: 1, ...extra, providers };
  const parsed = RouterConfigSchema.safeParse(raw);
  if (parsed.success) return { ok: true, config: parsed.data, raw };
  return {
    ok: false,
    issues: parsed.error.issues.map((i) => ({
      code: i.code === 'unrecognized_keys' ? 'SCENARIO_UNKNOWN_KEY' : 'SCENARIO_INVALID_VALUE',
      path: [
        'router',
        'config',
        ...(i.path as Array<string | number>),
        ...(i.code === 'unrecognized_keys' ? [i.keys[0]!] : []),
      ],
      message: i.code === 'unrecognized_keys' ? `unknown reference-router setting "${i.keys[0]}"` : i.message,
    })),
  };
}

/** Starts the reference router in-process on a free loopback port, over the simulator's providers. */
export function referenceLauncher(scenario: Scenario): RouterLauncher {
  return async (ctx: LaunchContext) => {
    const built = referenceConfig(scenario, Object.fromEntries(ctx.endpoints.map((e) => [e.id, e.baseUrl])));
    if (!built.ok) throw new Error(built.issues.map((i) => i.message).join('; '));
    const router = new Router(built.config, { env: ctx.env, seed: ctx.seed });
    const server = await startRouterServer(router, { host: '127.0.0.1', port: 0 });
    return {
      baseUrl: `${server.origin}/v1`,
      description: 'the reference router',
      async stop() {
        await server.close();
        await router.close();
      },
    };
  };
}

/**
 * The reference router in simulated time: in process, on the run's clock, calling the simulator
 * through an in-process transport and answered through its fetch handler (no socket anywhere).
 */
export function simulatedReferenceLauncher(scenario: Scenario): SimulatedRouterLauncher {
  return async (ctx) => {
    const built = referenceConfig(scenario, Object.fromEntries(ctx.endpoints.map((e) => [e.id, e.baseUrl])));
    if (!built.ok) throw new Error(built.issues.map((i) => i.message).join('; '));
    const router = new Router(built.config, {
      env: ctx.env,
      seed: ctx.seed,
      clock: ctx.clock,
      transport: createInProcessTransport(ctx.sim),
    });
    await router.warmUp();
    return {
      handler: routerFetchHandler(router),
      direct: routerDirectHandler(router),
      description: 'the reference router (in process, simulated time)',
      stop: () => router.close(),
    };
  };
}
