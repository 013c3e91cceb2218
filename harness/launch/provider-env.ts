import type { ProviderEndpoint } from '../../simulator/index.js';

/**
 * The one home of the `THROTTLELAB_*` variable names a router under test is given: the launchers
 * set them, scenario validation accepts them in `load.headers`, the reference-router wiring and
 * `simulate`'s listing print them.
 */
const PREFIX = 'THROTTLELAB';

/** An id as it appears in an environment variable name (`azure-east` → `AZURE_EAST`). */
export const envName = (id: string) => id.toUpperCase().replace(/[^A-Z0-9]/g, '_');

/** `THROTTLELAB_<PROVIDER>_<suffix>`, e.g. `THROTTLELAB_OPENAI_BASE_URL`. */
export function providerVar(
  providerId: string,
  suffix: 'BASE_URL' | 'VENDOR' | 'MODELS' | 'API_KEY' | 'API_KEYS',
): string {
  return `${PREFIX}_${envName(providerId)}_${suffix}`;
}

/** `THROTTLELAB_<PROVIDER>_KEY_<KEY>`: the variable holding one key's value. */
export function keyVar(providerId: string, keyId: string): string {
  return `${PREFIX}_${envName(providerId)}_KEY_${envName(keyId)}`;
}

/** `THROTTLELAB_<PROVIDER>_ORG_<KEY>`: the organisation a key belongs to (its own id when the scenario names none). */
export function orgVar(providerId: string, keyId: string): string {
  return `${PREFIX}_${envName(providerId)}_ORG_${envName(keyId)}`;
}

/** The simulator's origin and the list of provider ids. */
export const SIMULATOR_URL_VAR = `${PREFIX}_SIMULATOR_URL`;
export const PROVIDERS_VAR = `${PREFIX}_PROVIDERS`;
/** The port a launched router must listen on. */
export const ROUTER_PORT_VAR = `${PREFIX}_ROUTER_PORT`;
/**
 * The settings a scenario gives the reference router (`router.config` as JSON: a first-token
 * timeout, routing weights…), handed to a router command too: a router built on `throttlelab/router`
 * (docs/ci/example-router.mjs) takes them, any other may read or ignore them.
 */
export const REFERENCE_CONFIG_VAR = `${PREFIX}_REFERENCE_CONFIG`;
/** A fleet replica's name (`replica-0`, …), set for each replica the harness starts. */
export const ROUTER_REPLICA_VAR = `${PREFIX}_ROUTER_REPLICA`;
/** The Redis a fleet shares state through (a URL, and its host and port for configs that want them). */
export const REDIS_URL_VAR = `${PREFIX}_REDIS_URL`;
export const REDIS_HOST_VAR = `${PREFIX}_REDIS_HOST`;
export const REDIS_PORT_VAR = `${PREFIX}_REDIS_PORT`;
/** A key prefix for this run's keys in that Redis. */
export const REDIS_PREFIX_VAR = `${PREFIX}_REDIS_PREFIX`;

/** Every variable name `providerEnv` can set for these providers, for validating references to them. */
export function routerVariableNames(
  providers: ReadonlyArray<{ id: string; keys: ReadonlyArray<{ id: string }> }>,
): string[] {
  const names = [SIMULATOR_URL_VAR, PROVIDERS_VAR];
  for (const p of providers) {
    for (const suffix of ['BASE_URL', 'VENDOR', 'MODELS', 'API_KEY', 'API_KEYS'] as const)
      names.push(providerVar(p.id, suffix));
    for (const k of p.keys) names.push(keyVar(p.id, k.id), orgVar(p.id, k.id));
  }
  return names;
}

/**
 * Each scenario key's value as `providerEnv` asks for it: written in the scenario, or read from
 * the variable it names in `env` (only `bin/` passes the real environment).
 */
export function scenarioKeyValues(
  scenario: {
    providers: ReadonlyArray<{ id: string; keys: ReadonlyArray<{ id: string; value?: string; env?: string }> }>;
  },
  env: Readonly<Record<string, string | undefined>> | undefined,
): (provider: string, key: string) => string | undefined {
  return (provider, key) => {
    const k = scenario.providers.find((p) => p.id === provider)?.keys.find((x) => x.id === key);
    return k?.value ?? (k?.env !== undefined ? env?.[k.env] : undefined);
  };
}

/**
 * The environment a router under test gets: `THROTTLELAB_PROVIDERS` (ids), and per provider
 * `THROTTLELAB_<ID>_BASE_URL`, `_VENDOR`, `_MODELS` (comma-separated), `_API_KEY` (its first
 * key), `_API_KEYS`, and `_KEY_<KEYID>` and `_ORG_<KEYID>` (the organisation whose limits the key
 * shares) for each key. Keys here are the scenario's simulated keys, never real ones.
 */
export function providerEnv(
  endpoints: ProviderEndpoint[],
  simOrigin: string,
  keyValues: (provider: string, key: string) => string | undefined,
): Record<string, string> {
  const env: Record<string, string> = {
    [SIMULATOR_URL_VAR]: simOrigin,
    [PROVIDERS_VAR]: endpoints.map((e) => e.id).join(','),
  };
  for (const e of endpoints) {
    env[providerVar(e.id, 'BASE_URL')] = e.baseUrl;
    env[providerVar(e.id, 'VENDOR')] = e.vendor;
    env[providerVar(e.id, 'MODELS')] = e.models.join(',');
    const keys: string[] = [];
    for (const k of e.keys) {
      const value = keyValues(e.id, k.id);
      if (value === undefined) continue;
      keys.push(value);
      env[keyVar(e.id, k.id)] = value;
      env[orgVar(e.id, k.id)] = k.org;
    }
    if (keys[0]) env[providerVar(e.id, 'API_KEY')] = keys[0];
    env[providerVar(e.id, 'API_KEYS')] = keys.join(',');
  }
  return env;
}
