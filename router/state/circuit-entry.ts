import { CLOSED, type CircuitState } from '../core/circuit.js';
import type { CircuitUpdate } from '../core/state-store.js';

/** News from the fleet's channel not yet confirmed by a read: acted on meanwhile, never written against. */
interface Hint {
  value: string;
  seq: number;
  state: CircuitState | undefined;
}

/** What a replica knows of one scope's circuit. */
export interface Entry {
  /** The state this replica acts on: the fleet's, with this replica's unsent changes applied. */
  state: CircuitState | undefined;
  /**
   * The fleet's value as Redis last answered it (`<seq>|<json>`, '' for none): a join's snapshot,
   * a write's answer or a confirming read, never the channel. Writes compare against it.
   */
  value: string;
  seq: number;
  /** The newest channel news above `seq`, until a read confirms or overrules it. */
  hint: Hint | undefined;
  /** The number of the confirming read that was next when news of this scope was last heard. */
  heard: number;
  /** Changes applied here and not yet in the fleet's state, in order. */
  pending: CircuitUpdate[];
  /** Changed here while the fleet was out of reach. */
  dirty: boolean;
  /** Work on this scope (writes, leases) runs one at a time, in order. */
  chain: Promise<void>;
  draining: boolean;
}

/** A scope this replica has heard nothing of yet. */
export function newEntry(): Entry {
  return {
    state: undefined,
    value: '',
    seq: 0,
    hint: undefined,
    heard: 0,
    pending: [],
    dirty: false,
    chain: Promise.resolve(),
    draining: false,
  };
}

/** Past its window, a circuit's record is kept this long, then Redis forgets it. */
const RETAIN_MS = 3_600_000;

/** How long Redis keeps a circuit's record: its window or lease, then an hour. */
export function ttlOf(s: CircuitState, now: number): number {
  const end = s.state === 'open' ? s.until : s.state === 'half-open' ? s.leaseUntil : now;
  return Math.ceil(Math.max(0, end - now) + RETAIN_MS);
}

/** The state `fs` make of `s`, in order. */
export const fold = (fs: readonly CircuitUpdate[], s: CircuitState | undefined) =>
  fs.reduce<CircuitState>((acc, f) => f(acc), s ?? CLOSED);

/** Whether two states are the same. */
export const same = (a: CircuitState, b: CircuitState) => JSON.stringify(a) === JSON.stringify(b);
