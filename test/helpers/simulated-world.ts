import { createFakeClock } from '../../simulator/core/fake-clock.js';
import { createSimulator } from '../../simulator/simulator.js';
import { Router } from '../../router/router.js';
import { RouterConfigSchema } from '../../router/config/schema.js';
import { scenarioFrom } from './scenario.js';
import { createSimTransport } from './sim-transport.js';

/** 2026-06-01, where every simulated-time router test starts its clock. */
export const SIM_START = Date.UTC(2026, 5, 1);

/**
 * A simulator built from `scenarioYaml` and a reference router configured by `config` (the
 * parsed fields of a router config file, `version: 1` added), calling the simulator in process on
 * one fake clock: simulated time for router and providers alike. `route` moves the clock in 10 ms
 * steps until the request is answered.
 */
export function simulatedWorld(scenarioYaml: string, config: Record<string, unknown>, env: Record<string, string>) {
  const clock = createFakeClock(SIM_START);
  const sim = createSimulator(scenarioFrom(scenarioYaml), { seed: 2, clock });
  const router = new Router(RouterConfigSchema.parse({ version: 1, ...config }), {
    env,
    clock,
    seed: 5,
    transport: createSimTransport(sim),
  });
  const route = async (body: unknown) => {
    let done = false;
    const pending = router.route(body).finally(() => (done = true));
    while (!done) await clock.advance(10);
    return pending;
  };
  return { clock, sim, router, route };
}
