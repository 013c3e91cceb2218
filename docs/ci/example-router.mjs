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
      keys: [{ id: 'main', env: `THROTTLELAB_${name(id)}_API_KEY` }],
      models: (env[`THROTTLELAB_${name(id)}_MODELS`] ?? '').split(',').filter(Boolean),
    };
  });
const config = RouterConfigSchema.parse({ version: 1, providers });
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
