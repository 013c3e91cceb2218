// docs/ci/example-router.mjs is "your router" in the CI recipe: throttlelab's reference router built
// from the THROTTLELAB_* variables a `--router-cmd` gets. The recipe's own test
// (ci-workflow.test.ts) plays only a share of the pack with it on the wall clock; this file proves,
// for every scenario of the pack, that the router it builds from that scenario's variables is the
// one the reference launcher builds from the scenario itself, so the whole-pack verdicts of the
// reference router (simulated-run.test.ts) are its verdicts. Its `throttlelab/router` import is
// replaced by one that keeps the config it is given instead of serving it.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { referenceConfig } from '../../bin/reference-launcher.js';
import { loadRunScenarioFile, providerEnv, REFERENCE_CONFIG_VAR, ROUTER_PORT_VAR } from '../../harness/index.js';
import { scenarioKeyValues } from '../../harness/launch/provider-env.js';
import type { RouterConfig } from '../../router/index.js';
import { createSimulator } from '../../simulator/index.js';

const ROOT = join(import.meta.dirname, '..', '..');
const PACK = join(ROOT, 'scenarios', 'conformance');
const ORIGIN = 'http://127.0.0.1:4010';

const built = vi.hoisted(() => ({ configs: [] as unknown[] }));
vi.mock('throttlelab/router', async () => {
  const { RouterConfigSchema } = await import('../../router/index.js');
  return {
    RouterConfigSchema,
    Router: class {
      constructor(config: unknown) {
        built.configs.push(config);
      }
      close = () => Promise.resolve();
    },
    startRouterServer: () => Promise.resolve({ origin: 'http://127.0.0.1:1', close: () => Promise.resolve() }),
  };
});

/** The config example-router.mjs builds from `env`, as `node example-router.mjs` would with it. */
async function exampleConfig(env: Record<string, string>): Promise<RouterConfig> {
  // Only this scenario's variables: none left from the one before.
  vi.unstubAllEnvs();
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  const signals = { SIGTERM: process.listeners('SIGTERM'), SIGINT: process.listeners('SIGINT') };
  const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  vi.resetModules();
  built.configs.length = 0;
  await import(join(ROOT, 'docs/ci/example-router.mjs'));
  write.mockRestore();
  for (const [name, before] of Object.entries(signals))
    for (const l of process.listeners(name as 'SIGINT')) if (!before.includes(l)) process.off(name, l);
  expect(built.configs).toHaveLength(1);
  return built.configs[0] as RouterConfig;
}

/**
 * A key the scenario puts in no organisation gets its own id as one (THROTTLELAB_<ID>_ORG_<KEY>):
 * an organisation of one key, whose org-wide limit closes the same targets as the key's own limit
 * (router/core/circuit-policy.ts), which is what the reference router's `org: undefined` closes.
 */
function withOwnOrgs(config: RouterConfig): RouterConfig {
  return {
    ...config,
    providers: config.providers.map((p) => ({ ...p, keys: p.keys.map((k) => ({ ...k, org: k.org ?? k.id })) })),
  };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

const files = (await readdir(PACK)).filter((f) => f.endsWith('.yaml')).sort();

describe('docs/ci/example-router.mjs', () => {
  it('is the reference router of every scenario in the pack, built from the variables a router command gets', async () => {
    expect(files.length).toBeGreaterThanOrEqual(17);
    for (const file of files) {
      const loaded = await loadRunScenarioFile(join(PACK, file));
      if (!loaded.ok) throw new Error(loaded.report);
      const scenario = loaded.scenario;
      const endpoints = createSimulator(scenario, { seed: 1 }).endpoints(ORIGIN);
      const tuning = scenario.router.kind === 'reference' ? scenario.router.config : {};
      // What `run --router-cmd` hands the command (bin/commands/run.ts), the scenario's tuning included.
      const env = {
        ...providerEnv(endpoints, ORIGIN, scenarioKeyValues(scenario, {})),
        ...(Object.keys(tuning).length > 0 ? { [REFERENCE_CONFIG_VAR]: JSON.stringify(tuning) } : {}),
        [ROUTER_PORT_VAR]: '4011',
      };
      const reference = referenceConfig(scenario, Object.fromEntries(endpoints.map((e) => [e.id, e.baseUrl])));
      if (!reference.ok) throw new Error(JSON.stringify(reference.issues));
      expect(withOwnOrgs(await exampleConfig(env)), file).toEqual(withOwnOrgs(reference.config));
    }
  });

  it('tells a scenario whose keys or tuning it would miss from one it builds right', async () => {
    // The comparison above can fail: without the scenario's tuning the config of 10 differs.
    const loaded = await loadRunScenarioFile(join(PACK, '10-keep-alive-hold.yaml'));
    if (!loaded.ok) throw new Error(loaded.report);
    const endpoints = createSimulator(loaded.scenario, { seed: 1 }).endpoints(ORIGIN);
    const untuned = await exampleConfig(providerEnv(endpoints, ORIGIN, scenarioKeyValues(loaded.scenario, {})));
    const reference = referenceConfig(loaded.scenario, Object.fromEntries(endpoints.map((e) => [e.id, e.baseUrl])));
    expect(reference.ok).toBe(true);
    if (reference.ok) expect(withOwnOrgs(untuned)).not.toEqual(withOwnOrgs(reference.config));
  });
});
