import type { SharedFaultEntry } from './shared-fault-entry.js';

/**
 * How a fault change applies: `add` places a fault afresh (its counters from zero), `update`
 * changes one in place (its counters kept) or places it if this worker has none, `remove` takes it off.
 */
export type FaultOp = 'add' | 'update' | 'remove';

/**
 * Where the control API sends fault changes when the simulator is one worker of a group: every
 * worker applies them, this one included. The port; `connectFaultSync` is the Redis adapter.
 */
export interface FaultChannel {
  /**
   * Shares a change and resolves once this worker has applied it; rejects with a `SimError`
   * `SIM_FAULT_NOT_SHARED` when it could not be shared (Redis down), and then no worker applies it.
   */
  share(op: FaultOp, id: string, entry: SharedFaultEntry): Promise<void>;
}
