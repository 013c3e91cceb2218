import { readFile } from 'node:fs/promises';
import { parseRouterConfig, Router, startRouterServer } from '../../router/index.js';
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

/** Serves the reference router from a config file until stopped. */
export async function routerCommand(options: RouterCommandOptions, io: Io): Promise<ExitCode> {
  let text: string;
  try {
    text = await readFile(options.config, 'utf8');
  } catch (error) {
    io.err(
      `${options.config}:1:1 CONFIG_FILE_UNREADABLE (root): cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
    return EXIT.BAD_INPUT;
  }
  const parsed = parseRouterConfig(text, io.env);
  if (!parsed.ok) {
    // Locating is the cold path: the simulator's YAML locator loads only when a config is wrong.
    const { formatIssues, locateInYaml } = await import('../../simulator/index.js');
    io.err(formatIssues(options.config, locateInYaml(text, parsed.issues)));
    return EXIT.BAD_INPUT;
  }
  const seed = options.seed ?? io.randomSeed();
  const router = new Router(parsed.config, { env: io.env, seed });
  const tokens = parsed.config.server.authTokens.map((t) => io.env[t.env]!).filter(Boolean);
  const server = await startRouterServer(router, {
    host: options.host,
    port: options.port,
    authTokens: tokens,
    onError: (e) => io.err(`router: survived an error: ${(e as Error).message}`),
  });
  io.out(`throttlelab router: listening on ${server.origin} (seed ${seed}; replay with --seed ${seed})`);
  io.out(
    `  OpenAI-compatible API: ${server.origin}/v1   state: ${server.origin}/state   metrics: ${server.origin}/metrics`,
  );
  io.out(`  models: ${router.modelNames().join(', ')}`);
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
