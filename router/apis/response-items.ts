import { createHash } from 'node:crypto';
import type { SharedItemBounds, SharedItems } from '../core/shared-items.js';

/** What a Responses codec may use of the items the router returned earlier. */
export interface ItemsContext {
  /** A returned item by its id, or undefined if the router never returned it (or no longer keeps it). */
  recall(id: string): Record<string, unknown> | undefined;
  /** Keeps an output item the router is returning, for later `item_reference`s. */
  remember(item: Record<string, unknown>): void;
}

/** How many returned items are kept, and how many bytes of them; how a fleet's shared ones are bounded. */
export interface ItemBounds extends Partial<SharedItemBounds> {
  maxItems: number;
  maxBytes: number;
}

/** At most this many references of one request are looked up in the fleet's store. */
const MAX_SHARED_LOOKUPS = 1000;
/** An item larger than this (JSON characters) is kept in process only, never in the fleet's store. */
const MAX_SHARED_ITEM_CHARS = 1 << 20;
const SHARED_DEFAULTS: SharedItemBounds = { ttlMs: 3_600_000, maxPerCaller: 1000 };

/**
 * The Responses output items the router returned (messages, function calls), kept by caller and id
 * so that a client sending `{ type: 'item_reference', id }` for an item of an earlier answer (the
 * AI SDK does, with `store` on by default) gets that item back whichever vendor serves the next
 * turn. Bounded in count and bytes, oldest out first; a caller is the hash of the credential its
 * request came with, so one caller cannot reference another's items (the credential itself is
 * never kept). With a fleet's `shared` store (Redis) each item is also written there, bounded per
 * caller and in time, so that another replica resolves it; a reference not known here is looked
 * up there before the request is read, and a store that cannot answer leaves only this process's.
 */
export class ResponseItems {
  private readonly items = new Map<string, string>();
  private bytes = 0;
  private readonly sharedBounds: SharedItemBounds;

  constructor(
    private readonly bounds: ItemBounds,
    private readonly shared?: SharedItems,
  ) {
    this.sharedBounds = {
      ttlMs: bounds.ttlMs ?? SHARED_DEFAULTS.ttlMs,
      maxPerCaller: bounds.maxPerCaller ?? SHARED_DEFAULTS.maxPerCaller,
    };
  }

  /**
   * The view of one caller's items for a request: its references not known here are first
   * fetched from the fleet's store, if there is one. Without a store, or with nothing to fetch,
   * the view is returned as is rather than as a promise, so that the hot path pays no await.
   */
  forRequest(
    headers: Readonly<Record<string, string | string[] | undefined>>,
    body: unknown,
  ): ItemsContext | Promise<ItemsContext> {
    const keep = keepsItems(body);
    const ids = this.shared ? referencedIds(body) : [];
    if (ids.length === 0) return this.forCaller(headers, keep);
    const scope = callerOf(headers);
    const missing = ids.filter((id) => !this.items.has(`${scope} ${id}`));
    if (missing.length === 0) return this.forCaller(headers, keep, undefined, scope);
    return this.shared!.load(scope, missing).then(
      (fetched) => this.forCaller(headers, keep, fetched, scope),
      () => this.forCaller(headers, keep, undefined, scope),
    );
  }

  /** The view of one caller's items, from its request headers (and items fetched from the fleet). */
  forCaller(
    headers: Readonly<Record<string, string | string[] | undefined>>,
    keep: boolean,
    fetched?: ReadonlyMap<string, string>,
    known?: string,
  ): ItemsContext {
    // Hashed only when a request uses items: most requests through a codec never do.
    let scope = known;
    const caller = () => (scope ??= callerOf(headers));
    return {
      recall: (id) => {
        const text = this.items.get(`${caller()} ${id}`) ?? fetched?.get(id);
        return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
      },
      remember: (item) => {
        if (keep) this.remember(caller(), item);
      },
    };
  }

  get size(): number {
    return this.items.size;
  }

  private remember(scope: string, item: Record<string, unknown>): void {
    if (typeof item.id !== 'string') return;
    const key = `${scope} ${item.id}`;
    const text = JSON.stringify(item);
    // The fleet's copy is written in the background: a store that cannot take it costs only the fleet's view.
    if (this.shared && text.length <= MAX_SHARED_ITEM_CHARS)
      this.shared.save(scope, item.id, text, this.sharedBounds).catch(() => {});
    if (text.length > this.bounds.maxBytes) return;
    this.drop(key);
    this.items.set(key, text);
    this.bytes += text.length;
    for (const [oldest] of this.items) {
      if (this.items.size <= this.bounds.maxItems && this.bytes <= this.bounds.maxBytes) break;
      this.drop(oldest);
    }
  }

  private drop(key: string): void {
    const text = this.items.get(key);
    if (text === undefined) return;
    this.items.delete(key);
    this.bytes -= text.length;
  }
}

/** Whether a request lets the router keep what it returns (`store: false` says not, as it tells OpenAI). */
export const keepsItems = (body: unknown): boolean =>
  !(typeof body === 'object' && body !== null && (body as { store?: unknown }).store === false);

/** A caller: a hash of the credential its request carries ('' for none). */
function callerOf(headers: Readonly<Record<string, string | string[] | undefined>>): string {
  const credential = headers['authorization'] ?? headers['x-api-key'] ?? headers['api-key'] ?? '';
  const text = Array.isArray(credential) ? credential.join(',') : credential;
  return text === '' ? '-' : createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/** The ids a request's `item_reference` input items name, at most {@link MAX_SHARED_LOOKUPS}. */
function referencedIds(body: unknown): string[] {
  const input = typeof body === 'object' && body !== null ? (body as { input?: unknown }).input : undefined;
  if (!Array.isArray(input)) return [];
  const ids = new Set<string>();
  for (const item of input as unknown[]) {
    const ref = item as { type?: unknown; id?: unknown } | null;
    if (ref?.type === 'item_reference' && typeof ref.id === 'string') ids.add(ref.id);
    if (ids.size >= MAX_SHARED_LOOKUPS) break;
  }
  return [...ids];
}
