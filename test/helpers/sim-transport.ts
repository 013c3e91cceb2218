import type { Transport } from '../../router/index.js';
import type { Simulator } from '../../simulator/index.js';
import { createInProcessTransport } from '../../bin/in-process-transport.js';

/** A router Transport that calls a simulator in-process (see bin/in-process-transport.ts). */
export function createSimTransport(sim: Simulator): Transport {
  return createInProcessTransport(sim);
}
