/** What a shared store needs for circuits: an atomic compare-and-set on a stored value, and a read. */
export interface CircuitBackend {
  /**
   * Sets `scope` to `state` if its stored value is still `expected` ('' for none), publishing the
   * change to the fleet; answers the value stored afterwards either way.
   */
  cas(scope: string, expected: string, state: string, ttlMs: number): Promise<{ ok: boolean; value: string }>;
  /** The stored values of `scopes`, in order ('' for none): what confirms the channel's news. */
  read(scopes: string[]): Promise<string[]>;
}
