// Over 300 lines on purpose: the one place every command, option and parser of the CLI is declared,
// with the one error boundary (runCli); the commands themselves live in commands/.
import { Command, InvalidArgumentError } from 'commander';
import { CliError, isInterrupted, knownError } from './errors.js';
import { EXIT, interruptedCode, type ExitCode } from './exit-codes.js';
import type { Io } from './io.js';
import { packageVersion } from './package-root.js';

function parseSeed(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n > 4294967295)
    throw new InvalidArgumentError('expected an integer from 0 to 4294967295.');
  return n;
}

function parseWorkers(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 64)
    throw new InvalidArgumentError('expected a number of workers from 1 to 64.');
  return n;
}

function parseJobs(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 16)
    throw new InvalidArgumentError('expected a number of jobs from 1 to 16.');
  return n;
}

function parseLocalWorkers(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 64) throw new InvalidArgumentError('expected a number of workers from 0 to 64.');
  return n;
}

function parseSeconds(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 86_400) throw new InvalidArgumentError('expected seconds from 1 to 86400.');
  return n;
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError('expected a port from 0 to 65535.');
  return n;
}

function parseHost(value: string): '127.0.0.1' | '::1' {
  if (value !== '127.0.0.1' && value !== '::1')
    throw new InvalidArgumentError('only loopback is allowed: 127.0.0.1 or ::1.');
  return value;
}

function parsePercent(value: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(n <= 1000))
    throw new InvalidArgumentError('expected a percentage from 0 to 1000.');
  return n;
}

function parseStore(value: string): 'memory' | 'redis' {
  if (value !== 'memory' && value !== 'redis') throw new InvalidArgumentError('expected memory or redis.');
  return value;
}

function parseTime(value: string): 'wall' | 'simulated' {
  if (value !== 'wall' && value !== 'simulated') throw new InvalidArgumentError('expected wall or simulated.');
  return value;
}

function parseEvidence(value: string): 'full' | 'summary' | 'none' {
  if (value !== 'full' && value !== 'summary' && value !== 'none')
    throw new InvalidArgumentError('expected full, summary or none.');
  return value;
}

const EVIDENCE_HELP =
  'raw evidence beside the report: full (every attempt and outcome; gzip from 100 000 lines), summary (those of the requests the report cites), none; with --seeds, as explore';
const SWEEP_EVIDENCE_HELP =
  'what explore.json keeps beside the tallies: full (every run and its checks), summary (the runs that did not pass), none';

function parseWeather(value: string): 'fixed' | 'random' {
  if (value !== 'fixed' && value !== 'random') throw new InvalidArgumentError('expected fixed or random.');
  return value;
}

function parseUrlPath(value: string): string {
  if (!value.startsWith('/') || /[\s?#]/.test(value))
    throw new InvalidArgumentError(
      'expected a URL path such as /v1 or /api/v1 (starting with /, no spaces, query or fragment).',
    );
  return value;
}

function parseRouterUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected a URL such as http://127.0.0.1:4000/v1.');
  }
  if (!['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname) || !/^https?:$/.test(url.protocol))
    throw new InvalidArgumentError('only loopback routers (127.0.0.1, ::1, localhost) may be load-tested.');
  return value;
}

function parseLoopbackUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected a URL such as http://127.0.0.1:4000.');
  }
  if (!['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname) || url.protocol !== 'http:')
    throw new InvalidArgumentError('only a loopback simulator (http://127.0.0.1, [::1], localhost).');
  return url.origin;
}

function parseRedisUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || !url.hostname)
    throw new InvalidArgumentError('expected a redis:// or rediss:// URL such as redis://127.0.0.1:6379.');
  return value;
}

const MAX_DURATION_MS = 24 * 86_400_000;

/**
 * Reads a duration option (`--duration` unless `flag` says otherwise) with the parser of the
 * package the command loads; a bad one is a usage error.
 */
export function durationArg(
  value: string | undefined,
  parse: (v: string) => number | undefined,
  flag = '--duration',
): number | undefined {
  if (value === undefined) return undefined;
  const ms = parse(value);
  if (ms === undefined || !(ms > 0))
    throw new CliError('CLI_USAGE', `${flag}: expected a duration such as 30s or 5m, got "${value}".`);
  // Node's timers misfire past 2^31−1 ms (after 1 ms instead); without --duration it runs until stopped.
  if (ms > MAX_DURATION_MS)
    throw new CliError(
      'CLI_USAGE',
      `${flag}: at most 24d, got "${value}"${flag === '--duration' ? '; leave it out to run until stopped' : ''}.`,
    );
  return ms;
}

function buildProgram(io: Io, setCode: (code: ExitCode) => void): Command {
  const program = new Command()
    .name('throttlelab')
    .description('Prove that your LLM router survives rate limits.')
    .version(packageVersion(), '-V, --version', 'print the version')
    // A mistyped flag gets the error, commander's "Did you mean …?" and one line, not the whole help.
    .showSuggestionAfterError()
    .showHelpAfterError('(add --help for the usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.out(s.replace(/\n$/, '')),
      writeErr: (s) => io.err(s.replace(/\n$/, '')),
    });

  program
    .command('simulate')
    .description('serve the simulated providers of a scenario until stopped')
    .argument('[scenario]', 'scenario YAML file (not with --join)')
    .option('--seed <n>', 'seed for every random choice (printed at start; reuse it to replay)', parseSeed)
    .option('--port <n>', "port to listen on (default: the scenario's, else a free one)", parsePort)
    .option('--host <addr>', 'loopback address: 127.0.0.1 or ::1', parseHost)
    .option('--duration <d>', 'stop by itself after this long, e.g. 60s')
    .option('--ledger-out <file>', 'stream every attempt to this JSONL file')
    .option('--dashboard', 'serve a live dashboard on loopback (attempts, announced waits, quota, faults)')
    .option('--dashboard-port <n>', 'port of the dashboard (default: a free one)', parsePort)
    .option('--tls', 'serve HTTPS (HTTP/2 and HTTP/1.1 by ALPN) with a certificate from a throwaway CA')
    .option('--tls-ca-out <file>', 'where --tls writes the CA certificate (default: a temporary folder)')
    .option('--workers <n>', 'serve from n processes on one port, quotas shared through Redis', parseWorkers)
    .option(
      '--redis-url <url>',
      'the Redis --workers share quotas through (default: a private redis-server)',
      parseRedisUrl,
    )
    .option(
      '--join <url>',
      "serve as one more worker of a running --workers group on this Redis (another host's)",
      parseRedisUrl,
    )
    .option('--group <prefix>', 'with --join: the group the primary printed (default: the newest)')
    .option(
      '--joiner-timeout <d>',
      "with --workers: how long the stopped primary waits for joined workers' last rows (default 30s)",
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ throttlelab simulate scenarios/quickstart.yaml --seed 42 --duration 5m --dashboard\n  $ throttlelab simulate scenarios/quickstart.yaml --workers 2 --ledger-out ledger.jsonl\n  $ throttlelab simulate scenarios/quickstart.yaml --tls --tls-ca-out ca.pem',
    )
    .action(
      async (
        scenario: string | undefined,
        opts: {
          join?: string;
          group?: string;
          seed?: number;
          port?: number;
          host?: '127.0.0.1' | '::1';
          duration?: string;
          ledgerOut?: string;
          dashboard?: boolean;
          dashboardPort?: number;
          tls?: boolean;
          tlsCaOut?: string;
          workers?: number;
          redisUrl?: string;
          joinerTimeout?: string;
        },
      ) => {
        const { parseDuration } = await import('../simulator/index.js');
        const durationMs = durationArg(opts.duration, parseDuration);
        const joinerTimeoutMs = durationArg(opts.joinerTimeout, parseDuration, '--joiner-timeout');
        if (joinerTimeoutMs !== undefined && (opts.workers === undefined || opts.join !== undefined))
          throw new CliError(
            'CLI_USAGE',
            '--joiner-timeout is how long a --workers primary waits for joined workers; add --workers N.',
          );
        if (opts.join !== undefined) {
          if (scenario !== undefined || opts.workers !== undefined || opts.dashboard || opts.seed !== undefined)
            throw new CliError(
              'CLI_USAGE',
              '--join takes the scenario and seed of the group it joins; drop the scenario, --seed, --workers and --dashboard.',
            );
          const { simulateJoin } = await import('./commands/simulate-join.js');
          setCode(await simulateJoin({ ...opts, join: opts.join }, io));
          return;
        }
        if (scenario === undefined)
          throw new CliError('CLI_USAGE', 'simulate needs a scenario file (or --join <redis-url>).');
        if (opts.redisUrl !== undefined && opts.workers === undefined)
          throw new CliError('CLI_USAGE', '--redis-url shares quotas between --workers; add --workers N.');
        if (opts.tlsCaOut !== undefined && !opts.tls)
          throw new CliError('CLI_USAGE', '--tls-ca-out says where --tls writes its CA certificate; add --tls.');
        if (opts.workers !== undefined) {
          if (opts.dashboard)
            throw new CliError('CLI_USAGE', '--dashboard serves one process; drop it with --workers.');
          // The server key would have to be handed to every worker process; it stays in one.
          if (opts.tls) throw new CliError('CLI_USAGE', '--tls serves one process; drop it with --workers.');
          const { simulateWorkers } = await import('./commands/simulate-workers.js');
          setCode(await simulateWorkers({ scenario, ...opts, workers: opts.workers, durationMs, joinerTimeoutMs }, io));
          return;
        }
        const { simulate } = await import('./commands/simulate.js');
        setCode(await simulate({ scenario, ...opts, durationMs }, io));
      },
    );

  const routerOptions = (cmd: Command) =>
    cmd
      .option(
        '--router-cmd <command>',
        'start this router instead (it gets THROTTLELAB_* variables and listens on $THROTTLELAB_ROUTER_PORT)',
      )
      .option(
        '--router-url <url>',
        'use the router already running at this OpenAI-compatible base URL (loopback only)',
        parseRouterUrl,
      )
      .option(
        '--router-base-path <path>',
        'where a launched router serves its OpenAI-compatible API (default /v1; e.g. / or /api/v1)',
        parseUrlPath,
      )
      .option(
        '--ready-path <path>',
        'what to poll until a launched router is up (default <base path>/models)',
        parseUrlPath,
      )
      .option(
        '--store <memory|redis>',
        "a fleet's store instead of the scenario's (memory: each replica on its own, to see what sharing buys)",
        parseStore,
      )
      .option(
        '--redis-url <url>',
        'a fleet shares state through this running Redis (e.g. a CI service container) instead of a redis-server of its own; its redis faults are not played',
        parseRedisUrl,
      )
      .option(
        '--time <wall|simulated>',
        'simulated: the reference router in process on one simulated clock, event by event (seconds for hours, the same bytes every time)',
        parseTime,
      );

  routerOptions(
    program
      .command('run')
      .description('run a scenario against a router under load, judge it from the ledger, and write the reports')
      .argument('<scenario>', 'scenario YAML file with a load section')
      .option('--seed <n>', 'seed for every random choice (printed; reuse it to replay)', parseSeed)
      .option('--out <dir>', 'report folder (default: reports/<scenario>-<time>)')
      .option('--sim-port <n>', 'fixed simulator port, for a router started beforehand', parsePort)
      .option('--dashboard', 'serve a live dashboard on loopback while the run goes')
      .option('--dashboard-port <n>', 'port of the dashboard (default: a free one)', parsePort)
      .option('--evidence <full|summary|none>', EVIDENCE_HELP, parseEvidence)
      .option('--quiet', 'no progress line, nothing non-essential on stderr (the verdicts still print)')
      .option(
        '--load-workers <n>',
        "send the open loop from n processes, arrivals dealt round-robin; they meet on --redis-url's Redis (default: a private redis-server)",
        parseWorkers,
      )
      .option(
        '--local-load-workers <k>',
        'of --load-workers, how many this command starts (default all); the rest join with load-worker --join',
        parseLocalWorkers,
      ),
  )
    .addHelpText(
      'after',
      `\nExamples:\n  $ throttlelab run scenarios/quickstart.yaml\n  $ throttlelab run scenarios/conformance/02-429-hint-forms.yaml --router-cmd 'litellm --config litellm.yaml --port $THROTTLELAB_ROUTER_PORT'`,
    )
    .action(
      async (
        scenario: string,
        opts: {
          seed?: number;
          out?: string;
          simPort?: number;
          routerCmd?: string;
          routerUrl?: string;
          store?: 'memory' | 'redis';
          redisUrl?: string;
          time?: 'wall' | 'simulated';
          dashboard?: boolean;
          dashboardPort?: number;
          routerBasePath?: string;
          readyPath?: string;
          quiet?: boolean;
          evidence?: 'full' | 'summary' | 'none';
          loadWorkers?: number;
          localLoadWorkers?: number;
        },
      ) => {
        if (opts.localLoadWorkers !== undefined && opts.loadWorkers === undefined)
          throw new CliError('CLI_USAGE', '--local-load-workers needs --load-workers N.');
        const { run } = await import('./commands/run.js');
        const { quiet, ...rest } = opts;
        setCode(await run({ scenario, ...rest }, quiet ? { ...io, quiet } : io));
      },
    );

  routerOptions(
    program
      .command('conform')
      .description('run the conformance pack against a router and write one combined report')
      .option('--dir <dir>', 'scenario folder (default: the conformance pack shipped with throttlelab)')
      .option('--fleet', "run the pack's fleet group (<dir>/fleet): router replicas judged as one router")
      .option('--only <text>', 'only scenarios whose file name contains this')
      .option('--seed <n>', 'seed for every scenario', parseSeed)
      .option(
        '--seeds <list>',
        'one verdict over several seeds, e.g. 1..12 (FAIL if any seed fails a check; worker processes, as explore)',
      )
      .option('--out <dir>', 'report folder')
      .option('--sim-port <n>', 'fixed simulator port, for a router started beforehand', parsePort)
      .option(
        '--jobs <n>',
        'scenarios side by side on the wall clock, each with its own simulator and router (default 1)',
        parseJobs,
      )
      .option('--evidence <full|summary|none>', EVIDENCE_HELP, parseEvidence)
      .option('--quiet', 'no progress line ("3/12 name", ETA), nothing non-essential on stderr'),
  ).action(
    async (opts: {
      dir?: string;
      fleet?: boolean;
      store?: 'memory' | 'redis';
      redisUrl?: string;
      only?: string;
      seed?: number;
      seeds?: string;
      out?: string;
      simPort?: number;
      jobs?: number;
      routerCmd?: string;
      routerUrl?: string;
      time?: 'wall' | 'simulated';
      routerBasePath?: string;
      readyPath?: string;
      quiet?: boolean;
      evidence?: 'full' | 'summary' | 'none';
    }) => {
      const { conform } = await import('./commands/conform.js');
      const { builtinConformanceDir } = await import('./package-root.js');
      const { quiet, ...rest } = opts;
      setCode(await conform({ ...rest, dir: opts.dir ?? builtinConformanceDir() }, quiet ? { ...io, quiet } : io));
    },
  );

  program
    .command('explore')
    .description(
      'run scenarios over many seeds on every core and count, per check, how often it passes (95 % interval)',
    )
    .argument('[paths...]', 'scenario files or folders (default: the conformance pack)')
    .option('--seeds <list>', 'seeds as 1..100 or 1,5,9 (default 1..100; 1..5 for --router-cmd)')
    .option('--workers <n>', 'worker processes (default: one per core; 1 for --router-cmd)', parseWorkers)
    .option(
      '--router <reference|module>',
      'reference (default), or a JavaScript module judged in process: it exports createRouter(ctx) or a fetch handler',
    )
    .option('--router-cmd <command>', 'start this router for every run, on the wall clock (fewer seeds)')
    .option(
      '--job-timeout <s>',
      'kill a run after this many seconds and count it as an error (default 120)',
      parseSeconds,
    )
    .option('--json <file>', 'write the tallies and every run as JSON here (default: <out>/explore.json)')
    .option('--html <file>', 'write the tallies as HTML here (default: <out>/explore.html)')
    .option('--out <dir>', 'folder for explore.json and explore.html (default: reports/explore-<time>)')
    .option(
      '--weather <fixed|random>',
      'random: each seed also draws the faults (docs/weather.md)',
      parseWeather,
      'fixed',
    )
    .option('--save <dir>', 'shrink each failing run of the reference router and keep it here as a regression')
    .option('--evidence <full|summary|none>', SWEEP_EVIDENCE_HELP, parseEvidence)
    .option('--quiet', 'no progress line ("40 of 100 runs", ETA), nothing non-essential on stderr')
    .addHelpText(
      'after',
      '\nExamples:\n  $ throttlelab explore --seeds 1..100\n  $ throttlelab explore scenarios/conformance/10-keep-alive-hold.yaml --seeds 1..500 --workers 2\n  $ throttlelab explore --router ./my-router.js --seeds 1..20',
    )
    .action(
      async (
        paths: string[],
        opts: {
          seeds?: string;
          workers?: number;
          router?: string;
          routerCmd?: string;
          jobTimeout?: number;
          json?: string;
          html?: string;
          out?: string;
          weather: 'fixed' | 'random';
          save?: string;
          evidence?: 'full' | 'summary' | 'none';
          quiet?: boolean;
        },
      ) => {
        const { explore } = await import('./commands/explore.js');
        const { builtinConformanceDir } = await import('./package-root.js');
        const { weatherOptions, saveFailures } = await import('./explore-weather.js');
        const { jobTimeout, weather, save, quiet, ...rest } = opts;
        if (save && ((rest.router && rest.router !== 'reference') || rest.routerCmd))
          throw new CliError('CLI_USAGE', '--save shrinks failures of the reference router only (in simulated time).');
        const w = weatherOptions(weather);
        setCode(
          await explore(
            {
              ...rest,
              paths: paths.length ? paths : [builtinConformanceDir()],
              ...(jobTimeout ? { jobTimeoutMs: jobTimeout * 1000 } : {}),
              ...w,
              ...(save ? { onFailure: saveFailures(save, w.prepare) } : {}),
            },
            quiet ? { ...io, quiet } : io,
          ),
        );
      },
    );

  program
    .command('report')
    .description('render a saved report.json again (HTML, Markdown, JUnit) and print its verdicts, or compare two')
    .argument(
      '<report.json...>',
      'a report written by run or conform; with --compare, the one before and the one after',
    )
    .option(
      '--out <dir>',
      'folder to write to (default: beside the JSON; with --compare, none: compare.md and compare.html only when given)',
    )
    .option(
      '--compare',
      'compare two reports check by check: better, worse, mixed or same; exit 1 if anything got worse beyond the tolerance',
    )
    .option(
      '--tolerance <pct>',
      'with --compare: how much worse (percent) a count, share or ratio may get',
      parsePercent,
      10,
    )
    .option(
      '--latency-tolerance <pct>',
      'with --compare: gate times (latency percentiles, timing checks) too, allowing this much worse (percent, and at least 50 ms)',
      parsePercent,
    )
    .addHelpText(
      'after',
      '\nExample:\n  $ throttlelab report --compare reports/before/report.json reports/after/report.json',
    )
    .action(
      async (
        files: string[],
        opts: { out?: string; compare?: boolean; tolerance: number; latencyTolerance?: number },
      ) => {
        if (opts.compare) {
          if (files.length !== 2)
            throw new CliError('CLI_USAGE', `--compare: expected two reports (before and after), got ${files.length}.`);
          const { compare } = await import('./commands/compare.js');
          setCode(
            await compare(
              {
                before: files[0]!,
                after: files[1]!,
                out: opts.out,
                tolerance: opts.tolerance,
                latencyTolerance: opts.latencyTolerance,
              },
              io,
            ),
          );
          return;
        }
        if (files.length !== 1)
          throw new CliError('CLI_USAGE', `expected one report, got ${files.length}; to compare two, add --compare.`);
        const { report } = await import('./commands/report.js');
        setCode(await report({ file: files[0]!, out: opts.out }, io));
      },
    );

  program
    .command('router')
    .description('serve the reference router (an OpenAI-compatible API) from a config file')
    .requiredOption('--config <file>', 'router config YAML')
    .option('--port <n>', "port to listen on (default: the config's)", parsePort)
    .option('--host <addr>', "address to listen on (default: the config's)")
    .option('--seed <n>', 'seed for every random choice (jitter, tie-breaks)', parseSeed)
    .option('--duration <d>', 'stop by itself after this long')
    .addHelpText(
      'after',
      '\nExample:\n  $ OPENAI_API_KEY=… ANTHROPIC_API_KEY=… throttlelab router --config router.yaml --port 8080',
    )
    .action(async (opts: { config: string; port?: number; host?: string; seed?: number; duration?: string }) => {
      const { routerCommand } = await import('./commands/router.js');
      const { readDuration } = await import('../router/index.js');
      const durationMs = durationArg(opts.duration, readDuration);
      setCode(await routerCommand({ ...opts, durationMs }, io));
    });

  program
    .command('load-worker')
    .description('take a segment of a `run --load-workers` load (from this or another host) and send it')
    .requiredOption('--join <url>', 'the Redis the run coordinates through, e.g. redis://10.0.0.5:6379', parseRedisUrl)
    .option('--group <id>', 'the load group the run printed (default: the newest on that Redis)')
    .addHelpText(
      'after',
      '\nExample:\n  $ throttlelab run scenarios/quickstart.yaml --router-url http://10.0.0.7:8080/v1 --load-workers 3 --local-load-workers 1 --redis-url redis://10.0.0.5:6379\n  $ throttlelab load-worker --join redis://10.0.0.5:6379   # on two other hosts',
    )
    .action(async (opts: { join: string; group?: string }) => {
      const { loadWorker } = await import('./commands/load-worker.js');
      setCode(await loadWorker(opts, io));
    });

  program
    .command('fault')
    .description("list, add, update, enable, disable or remove a running simulator's faults (its control API)")
    .argument('<action>', 'list, add, update, enable, disable or rm')
    .argument('[fault]', 'add: the fault as YAML or JSON (a scenario faults entry); the others: its id')
    .argument('[fields]', 'update: the fields to change, as YAML or JSON')
    .requiredOption('--sim <url>', 'the simulator, e.g. http://127.0.0.1:4000 (loopback only)', parseLoopbackUrl)
    .option('--json', 'list: print the faults as JSON, with the time each active one has left')
    .addHelpText(
      'after',
      "\nExamples:\n  $ throttlelab fault list --sim http://127.0.0.1:4000 --json\n  $ throttlelab fault add --sim http://127.0.0.1:4000 '{ id: storm, kind: status, status: 429, for: 30s, match: { provider: [openai] } }'\n  $ throttlelab fault update --sim http://127.0.0.1:4000 storm '{ status: 503, for: 1m }'\n  $ throttlelab fault disable --sim http://127.0.0.1:4000 storm\n  $ throttlelab fault rm --sim http://127.0.0.1:4000 storm",
    )
    .action(
      async (
        action: string,
        arg: string | undefined,
        fields: string | undefined,
        opts: { sim: string; json?: boolean },
      ) => {
        const actions = ['list', 'add', 'update', 'enable', 'disable', 'rm'] as const;
        const known = actions.find((a) => a === action);
        if (!known) throw new CliError('CLI_USAGE', `fault: expected ${actions.join(', ')}, got "${action}".`);
        if (fields !== undefined && known !== 'update')
          throw new CliError('CLI_USAGE', `fault ${known}: one argument only; quote the fault as one argument.`);
        const { fault } = await import('./commands/fault.js');
        setCode(await fault({ action: known, sim: opts.sim, arg, patch: fields, json: opts.json }, io));
      },
    );

  program
    .command('validate')
    .description('check scenario files and report every problem with its line and column')
    .argument('<files...>', 'scenario YAML files')
    .action(async (files: string[]) => {
      const { validate } = await import('./commands/validate.js');
      setCode(await validate({ files }, io));
    });
  return program;
}

/**
 * Runs the command line and returns its exit code; the one error boundary. A known error (a bad
 * scenario, config, flag, file, port or router: the user's to fix) prints one line and exits 2;
 * anything else is our bug: its stack is printed and the exit code is 70.
 */
export async function runCli(argv: readonly string[], io: Io): Promise<ExitCode> {
  let code: ExitCode = EXIT.OK;
  const program = buildProgram(io, (c) => (code = c));
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    const e = error as { code?: string };
    if (typeof e.code === 'string' && e.code.startsWith('commander.')) {
      const ok = ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(e.code);
      return ok ? EXIT.OK : EXIT.BAD_INPUT;
    }
    if (isInterrupted(error)) {
      io.err(`throttlelab: interrupted: ${(error as Error).message}`);
      return interruptedCode(io.stop);
    }
    const known = knownError(error);
    if (known) {
      io.err(`throttlelab: ${known.code}: ${known.message}`);
      if (known.detail) io.err(known.detail.replace(/^/gm, '  | '));
      return EXIT.BAD_INPUT;
    }
    io.err(
      `throttlelab: internal error; this is a bug, please report it.\n${(error as Error)?.stack ?? String(error)}`,
    );
    return EXIT.INTERNAL;
  }
}
