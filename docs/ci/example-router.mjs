// A stand-in for "your router" in the CI recipe (docs/ci.md): throttlelab's reference router, built
// with the `throttlelab/router` library from the THROTTLELAB_* variables every `--router-cmd` gets.
// Replace it with the command that starts your own router, e.g.
//   --router-cmd 'node server.js --port $THROTTLELAB_ROUTER_PORT'
//   node node_modules/throttlelab/docs/ci/example-router.mjs
import { Router, RouterConfigSchema, startRouterServer } from 'throttlelab/router';

const env = process.env;
const name = (id) => id.toUpperCase().replace(/[^A-Z0-9]/g, '_');
const providers = (env.THROTTLELAB_PROVIDERS ?? '')
  .split(',')
  .filter(Boolean)
  .map((id) => {
    const vendor = env[`THROTTLELAB_${name(id)}_VENDOR`];
    const baseUrl = env[`THROTTLELAB_${name(id)}_BASE_URL`];
    return {
      id,
      vendor: vendor === 'ratelimit-draft' ? 'openai-compatible' : vendor,
      baseUrl: vendor === 'vertex-ai' ? `${baseUrl}/v1/projects/throttlelab/locations/us-central1` : baseUrl,
      ...(vendor === 'azure-openai' ? { apiVersion: '2024-10-21' } : {}),
      // Every key the provider has (THROTTLELAB_<ID>_KEY_<KEY>), not only THROTTLELAB_<ID>_API_KEY
      // (the first): with one key of several, a router runs out of quota the pack expects it to use.
      keys: Object.keys(env)
        .filter((v) => v.startsWith(`THROTTLELAB_${name(id)}_KEY_`))
        .map((v) => {
          const key = v.slice(`THROTTLELAB_${name(id)}_KEY_`.length);
          // Keys of one organisation share its limits: a wait announced for it closes them all.
          const org = env[`THROTTLELAB_${name(id)}_ORG_${key}`];
          return { id: key.toLowerCase().replace(/_/g, '-'), env: v, ...(org ? { org } : {}) };
        }),
      models: (env[`THROTTLELAB_${name(id)}_MODELS`] ?? '').split(',').filter(Boolean),
    };
  });
// The settings each scenario gives the reference router (THROTTLELAB_REFERENCE_CONFIG: e.g. a 1 s
// first-token timeout where a provider holds streams open with keep-alives for 20 s). A router of
// your own may read them or keep its own: the pack judges what its clients see.
const tuning = JSON.parse(env.THROTTLELAB_REFERENCE_CONFIG ?? '{}');
// In a fleet (`conform --fleet`) the replicas share state through the run's Redis.
const store = env.THROTTLELAB_REDIS_URL
  ? { kind: 'redis', env: 'THROTTLELAB_REDIS_URL', keyPrefix: env.THROTTLELAB_REDIS_PREFIX ?? 'throttlelab:' }
  : undefined;
const config = RouterConfigSchema.parse({ version: 1, ...tuning, providers, ...(store ? { store } : {}) });
const router = new Router(config, { env, seed: 1 });
const server = await startRouterServer(router, {
  host: '127.0.0.1',
  port: Number(env.THROTTLELAB_ROUTER_PORT ?? 8080),
});
process.stdout.write(`example router listening on ${server.origin}/v1\n`);
const stop = () =>
  void server
    .close()
    .then(() => router.close())
    .then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
