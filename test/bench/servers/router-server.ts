import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
// Child process: the reference router from a config passed as JSON, keys in its environment.
import { RouterConfigSchema, Router, startRouterServer } from '../../../router/index.js';

const config = RouterConfigSchema.parse(JSON.parse(process.argv[2]!));
const router = new Router(config, { env: process.env, seed: 1, replica: process.env.BENCH_REPLICA ?? 'bench' });
// A Redis store joins its fleet before serving, as `throttlelab router` does.
await (router.store as { joined?: (ms: number) => Promise<boolean> }).joined?.(5000);
const server = await startRouterServer(router, { port: 0 });
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
let last = process.cpuUsage();
process.on('message', (m) => {
  // `{ snapshot: file }`: a heap snapshot, for finding what a benchmark's process holds on to.
  if (typeof m === 'object' && m !== null && 'snapshot' in m) writeHeapSnapshot(String(m.snapshot));
  if (m === 'gc') (globalThis as { gc?: () => void }).gc?.();
  const u = process.cpuUsage(last);
  last = process.cpuUsage();
  const mem = process.memoryUsage();
  // V8's spaces, for telling the young generation's reserved pages from the old generation's.
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]),
  );
  process.send!({
    cpuUs: u.user + u.system,
    rss: mem.rss,
    heapUsed: mem.heapUsed,
    heapTotal: mem.heapTotal,
    external: mem.external,
    arrayBuffers: mem.arrayBuffers,
    spaces,
  });
});
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
