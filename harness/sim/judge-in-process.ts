import { getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { createMswHandlers, createUndiciDispatcher, type ProviderEndpoint } from '../../simulator/index.js';
import { loadRunScenarioFile } from '../scenario/parse-run-scenario.js';
import type { RunScenario } from '../scenario/schema.js';
import { HarnessError } from '../errors.js';
import { installFakeTimersClock } from './fake-timers-clock.js';
import { SIM_ORIGIN, runSimulatedScenario, type SimulatedRunData } from './run-simulated.js';
import { SIMULATED_EPOCH } from './sim-clock.js';
import type { FetchHandler } from './sim-load.js';

/** What the code under test is told about the simulated providers. */
export interface InProcessContext {
  /** Each provider's base URL (intercepted in process: no socket is opened) and key values. */
  endpoints: ProviderEndpoint[];
  /** The same as `THROTTLELAB_*` variables (base URLs, vendors, models, keys), as a router command gets them. */
  env: Record<string, string>;
  seed: number;
}

/** A fetch handler, or a module exporting one (`export default { fetch }`, as Hono and Workers do). */
export type FetchTarget = FetchHandler | { fetch: FetchHandler } | { default: FetchHandler | { fetch: FetchHandler } };

/** Options for `judgeInProcess`. */
export interface JudgeInProcessOptions {
  /** A scenario file, or a scenario already parsed. */
  scenario: string | { scenario: RunScenario; text: string; file?: string };
  /** Builds the code under test once the simulated providers exist (it reads their URLs and keys here). */
  router: (ctx: InProcessContext) => FetchTarget | Promise<FetchTarget>;
  /** How the report names the code under test. */
  description?: string;
  /** Overrides the scenario's seed. */
  seed?: number;
  /** Epoch ms the simulated world starts at (2026-01-01T00:00:00Z by default, a UTC midnight). */
  startAt?: number;
}

function handlerOf(target: FetchTarget): FetchHandler {
  const t = 'default' in target ? target.default : target;
  if (typeof t === 'function') return t;
  if (t && typeof t.fetch === 'function') return (request) => t.fetch(request);
  throw new HarnessError(
    'HARNESS_SCENARIO_INVALID',
    'The code under test must be a fetch handler, (request: Request) => Promise<Response>, or a module exporting one as `fetch` or default.',
  );
}

/**
 * Judges JavaScript code in this process, in simulated time: any router or SDK wrapper that takes
 * a `Request` and gives a `Response`, and reaches its providers with `fetch` (the openai SDK, the
 * Vercel AI SDK, plain fetch), `node:http`, or the npm `undici` package's `request`, `stream` and
 * `fetch`. The simulated providers are installed in front of it twice, with one simulator behind
 * both: msw for the global `fetch` and `node:http`, and undici's global dispatcher for undici
 * (the same reply scripts as the simulator's HTTP server, streams chunk by chunk). msw answers a
 * global `fetch` before it reaches the dispatcher, so each request is answered once. Its timers are
 * replaced by `@sinonjs/fake-timers`, so its own `setTimeout` sleeps (an SDK's retry backoff, a
 * router's wait) become simulated time: an hour of rate-limit weather plays in a second, the same
 * every time. The load, the ledger and the checks are those of `throttlelab run`.
 */
export async function judgeInProcess(o: JudgeInProcessOptions): Promise<SimulatedRunData> {
  if (judging)
    throw new HarnessError(
      'HARNESS_SCENARIO_INVALID',
      'judgeInProcess is already judging in this process: fake timers, msw and the undici dispatcher are global, so judge one at a time (await the first).',
    );
  judging = true;
  try {
    return await judgeAlone(o);
  } finally {
    judging = false;
  }
}

/** Fake timers, msw and undici's dispatcher are installed globally: one judgement at a time per process. */
let judging = false;

async function judgeAlone(o: JudgeInProcessOptions): Promise<SimulatedRunData> {
  const given =
    typeof o.scenario === 'string' ? await loadRunScenarioFile(o.scenario, {}) : { ok: true as const, ...o.scenario };
  if (!given.ok) throw new HarnessError('HARNESS_SCENARIO_INVALID', given.report);
  const file = typeof o.scenario === 'string' ? o.scenario : (o.scenario.file ?? '(in process)');
  // Loaded on first use: a CLI run never pays for msw.
  const { setupServer } = await import('msw/node');
  const clock = await installFakeTimersClock(o.startAt ?? SIMULATED_EPOCH);
  let server: ReturnType<typeof setupServer> | undefined;
  const previousDispatcher = getGlobalDispatcher();
  try {
    return await runSimulatedScenario({
      scenario: given.scenario,
      scenarioText: given.text,
      scenarioFile: file,
      seed: o.seed ?? given.scenario.seed ?? 1,
      clock,
      launcher: async (ctx) => {
        server = setupServer(...createMswHandlers(ctx.sim, SIM_ORIGIN));
        server.listen({ onUnhandledRequest: 'error' });
        setGlobalDispatcher(createUndiciDispatcher(ctx.sim, SIM_ORIGIN));
        const handler = handlerOf(await o.router({ endpoints: ctx.endpoints, env: ctx.env, seed: ctx.seed }));
        return { handler, description: o.description ?? 'in-process code (simulated time)', stop: async () => {} };
      },
    });
  } finally {
    server?.close();
    setGlobalDispatcher(previousDispatcher);
    clock.uninstall();
  }
}
