import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  isFleet,
  launchCommand,
  launchFleet,
  REDIS_URL_VAR,
  type RouterLauncher,
  type RunScenario as Scenario,
} from '../harness/index.js';
import { referenceConfig, referenceLauncher } from './reference-launcher.js';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** How to start this CLI in another process: the program and arguments before the command, and where. */
export interface CliCommand {
  argv: string[];
  cwd: string;
}

/** This very CLI: the built files, or the sources through tsx when running from them (tests). */
export function thisCli(): CliCommand {
  const here = fileURLToPath(import.meta.url);
  const fromSources = here.endsWith('.ts');
  return {
    argv: [
      process.execPath,
      ...(fromSources ? ['--import', 'tsx'] : []),
      join(dirname(here), fromSources ? 'throttlelab.ts' : 'throttlelab.js'),
    ],
    cwd: join(dirname(here), fromSources ? '..' : '../..'),
  };
}

/** The command line that starts one reference-router replica: the CLI's `router` command. */
function routerCommand(cli: CliCommand, configFile: string, seed: number): { command: string; cwd: string } {
  return {
    command: `${cli.argv.map(quote).join(' ')} router --config ${quote(configFile)} --port "$THROTTLELAB_ROUTER_PORT" --host 127.0.0.1 --seed ${seed}`,
    cwd: cli.cwd,
  };
}

/**
 * Starts the reference router as a fleet: each replica a `throttlelab router` process of its own
 * (own port, own log file), their config the scenario's with the store it names: in memory (each
 * its own), or Redis (the run's, through THROTTLELAB_REDIS_URL, under the run's key prefix).
 */
export function referenceFleetLauncher(
  scenario: Scenario,
  baseEnv: Readonly<Record<string, string | undefined>>,
  cli: CliCommand = thisCli(),
): RouterLauncher {
  return async (ctx) => {
    const fleet = ctx.fleet!;
    const built = referenceConfig(scenario, Object.fromEntries(ctx.endpoints.map((e) => [e.id, e.baseUrl])));
    if (!built.ok) throw new Error(built.issues.map((i) => i.message).join('; '));
    const store =
      fleet.store === 'redis' ? { kind: 'redis', env: REDIS_URL_VAR, keyPrefix: fleet.keyPrefix } : { kind: 'memory' };
    const configFile = join(fleet.logDir, 'router.json');
    await writeFile(configFile, JSON.stringify({ ...built.raw, store }, null, 2));
    const what = `${fleet.replicas} replica${fleet.replicas === 1 ? '' : 's'} of the reference router`;
    return launchFleet(
      ctx,
      fleet.replicas,
      (i, replicaCtx) =>
        launchCommand(
          replicaCtx,
          {
            ...routerCommand(cli, configFile, ctx.seed + i),
            env: {},
            readyPath: '/healthz',
            startTimeout: 30_000,
            logFile: join(fleet.logDir, `replica-${i}.log`),
          },
          baseEnv,
        ),
      fleet.store === 'redis' ? `${what} sharing state through Redis` : `${what}, each with its state in memory`,
    );
  };
}

/** The reference router as a scenario asks for it: in-process, or a fleet of processes. */
export function launcherForReference(
  scenario: Scenario,
  baseEnv: Readonly<Record<string, string | undefined>>,
  cli?: CliCommand,
): RouterLauncher {
  return isFleet(scenario.router) ? referenceFleetLauncher(scenario, baseEnv, cli) : referenceLauncher(scenario);
}
