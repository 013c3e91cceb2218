import type { RunScenario, SimulatedRouterLauncher } from '../../harness/index.js';
import { simulatedReferenceLauncher } from '../../bin/reference-launcher.js';
import { longWaitAs503Launcher } from '../fixtures/weather/long-wait-as-503.js';

/** The routers a saved regression may name, each started in process in simulated time. */
export const REGRESSION_ROUTERS: Record<string, (scenario: RunScenario) => SimulatedRouterLauncher> = {
  reference: simulatedReferenceLauncher,
  'long-wait-as-503': longWaitAs503Launcher,
};
