import { hostname } from 'node:os';
import {
  parseRouterConfig,
  readConfigFile,
  redactRedisUrl,
  redisUrlOf,
  Router,
  startRouterServer,
  type StoreEvent,
} from '../../router/index.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { Io } from '../io.js';

/** Options of `throttlelab router`. */
export interface RouterCommandOptions {
  config: string;
  port?: number;
  host?: string;
  seed?: number;
  durationMs?: number;
}

/** The variable naming a replica of a fleet (set by `throttlelab run` for each replica it starts). */
export const REPLICA_VAR = 'THROTTLELAB_ROUTER_REPLICA';

/** How long a router with a shared store waits to join its fleet before serving on local state. */
const JOIN_WAIT_MS = 3000;

/** One line per change of the shared state's reachability: said once, not per failed reconnection. */
export function storeEventLine(e: StoreEvent): string {
  if (e.kind === 'joined')
    return e.rejoin
      ? `router: rejoined the fleet through ${e.url}; wrote back ${e.pushed} circuit${e.pushed === 1 ? '' : 's'} opened meanwhile`
      : `router: sharing state with the fleet through ${e.url} (key prefix "${e.prefix}")`;
  if (e.kind === 'rejected')
    return `router: ignored ${e.what} from the fleet at ${e.url}; such values are dropped and counted (store.rejected in /state), said once`;
  return e.atStart
    ? `router: shared state at ${e.url} is unreachable (${e.reason}); serving on local state until it answers`
    : `router: lost the shared state at ${e.url} (${e.reason}); serving on local state until it returns`;
}

/**
 * Reports errors the server survived, at most 10 a minute: a flood of one kind of failure must
 * not drown the terminal or fill a disk; the rest are counted in the next line that gets through.
 */
function logLimited(write: (line: string) => void, perMinute = 10): (e: unknown) => void {
  let windowStart = 0;
  let shown = 0;
  let hidden = 0;
  return (e) => {
    const now = performance.now();
    if (now - windowStart >= 60_000) {
      windowStart = now;
      shown = 0;
    }
    if (shown >= perMinute) {
      hidden++;
      return;
    }
    shown++;
    write(
      `router: survived an error: ${(e as Error)?.message ?? String(e)}${hidden ? ` (${hidden} more not shown)` : ''}`,
    );
    hidden = 0;
  };
}

/** Serves the reference router from a config file until stopped. */
export async function routerCommand(options: RouterCommandOptions, io: Io): Promise<ExitCode> {
  const read = await readConfigFile(options.config);
  if (!read.ok) {
    const { formatIssues } = await import('../../simulator/index.js');
    io.err(formatIssues(options.config, [{ ...read.issue, line: read.issue.line ?? 1, col: read.issue.col ?? 1 }]));
    return EXIT.BAD_INPUT;
  }
  const text = read.text;
  const parsed = parseRouterConfig(text, io.env);
  if (!parsed.ok) {
    // Locating is the cold path: the simulator's YAML locator loads only when a config is wrong.
    const { formatIssues, locateInYaml } = await import('../../simulator/index.js');
    io.err(formatIssues(options.config, locateInYaml(text, parsed.issues)));
    return EXIT.BAD_INPUT;
  }
  const seed = options.seed ?? io.randomSeed();
  const replica = (io.env[REPLICA_VAR] || `${hostname()}-${process.pid}`).replace(/[^A-Za-z0-9._:-]/g, '_');
  const router = new Router(parsed.config, {
    env: io.env,
    seed,
    replica,
    onStoreEvent: (e) => (e.kind === 'joined' ? io.out(storeEventLine(e)) : io.err(storeEventLine(e))),
  });
  const store = router.store as { joined?: (ms: number) => Promise<boolean> };
  if (store.joined) await store.joined(JOIN_WAIT_MS);
  const tokens = parsed.config.server.authTokens.map((t) => io.env[t.env]!).filter(Boolean);
  const server = await startRouterServer(router, {
    host: options.host,
    port: options.port,
    authTokens: tokens,
    onError: logLimited((line) => io.err(line)),
  });
  io.out(`throttlelab router: listening on ${server.origin} (seed ${seed}; replay with --seed ${seed})`);
  io.out(
    `  OpenAI-compatible API: ${server.origin}/v1   state: ${server.origin}/state   metrics: ${server.origin}/metrics`,
  );
  io.out(`  models: ${router.modelNames().join(', ')}`);
  const st = parsed.config.store;
  io.out(
    st.kind === 'redis'
      ? `  state: shared through ${redactRedisUrl(redisUrlOf(st, io.env) ?? '')} as replica "${replica}" (key prefix "${st.keyPrefix}")`
      : '  state: in memory (this process only)',
  );
  io.out(
    `  ${router.targets.length} targets; keys read from ${[...new Set(parsed.config.providers.flatMap((p) => p.keys.map((k) => `$${k.env}`)))].join(', ')}`,
  );
  io.out(
    tokens.length > 0
      ? '  clients must send Authorization: Bearer <token>'
      : '  no client tokens configured: the API is open',
  );
  await new Promise<void>((resolve) => {
    const timer = options.durationMs !== undefined ? setTimeout(resolve, options.durationMs) : undefined;
    io.stop.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
  await server.close();
  await router.close();
  io.out('router stopped.');
  return EXIT.OK;
}
