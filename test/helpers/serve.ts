import { createSimulator, type Simulator } from '../../simulator/simulator.js';
import { startSimulatorServer, type SimulatorServer } from '../../simulator/transports/http-server.js';
import { scenarioFrom } from './scenario.js';

/** A simulator served on 127.0.0.1, port 0. */
export interface Served {
  sim: Simulator;
  server: SimulatorServer;
  origin: string;
  errors: unknown[];
  close(): Promise<void>;
}

/** Starts a simulator for `yaml` over real HTTP. */
export async function serve(yaml: string, seed = 1): Promise<Served> {
  const sim = createSimulator(scenarioFrom(yaml), { seed });
  const errors: unknown[] = [];
  const server = await startSimulatorServer(sim, { port: 0, onError: (e) => errors.push(e) });
  return { sim, server, origin: server.origin, errors, close: () => server.close() };
}
