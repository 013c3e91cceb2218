/** How a fleet's shared items are bounded: per caller, and in time since a caller's last write. */
export interface SharedItemBounds {
  /** How long a caller's items live after its last write (ms). */
  ttlMs: number;
  /** The most items kept per caller; the oldest go first. */
  maxPerCaller: number;
}

/**
 * Where a fleet keeps the Responses items its replicas returned, so that one replica resolves an
 * `item_reference` to an item another returned. Keys are a caller's scope (a hash of its
 * credential, never the credential) and the item's id; values the item's JSON.
 */
export interface SharedItems {
  /** The JSON of the items kept under `scope` with these ids (ids not kept are left out); rejects when the store cannot answer. */
  load(scope: string, ids: readonly string[]): Promise<Map<string, string>>;
  /** Keeps one item's JSON under `scope` and its id, within `bounds`. */
  save(scope: string, id: string, json: string, bounds: SharedItemBounds): Promise<void>;
}
