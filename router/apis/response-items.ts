import { createHash } from 'node:crypto';

/** What a Responses codec may use of the items the router returned earlier. */
export interface ItemsContext {
  /** A returned item by its id, or undefined if the router never returned it (or no longer keeps it). */
  recall(id: string): Record<string, unknown> | undefined;
  /** Keeps an output item the router is returning, for later `item_reference`s. */
  remember(item: Record<string, unknown>): void;
}

/** How many returned items are kept, and how many bytes of them. */
export interface ItemBounds {
  maxItems: number;
  maxBytes: number;
}

/**
 * The Responses output items the router returned (messages, function calls), kept by caller and id
 * so that a client sending `{ type: 'item_reference', id }` for an item of an earlier answer (the
 * AI SDK does, with `store` on by default) gets that item back whichever vendor serves the next
 * turn. Bounded in count and bytes, oldest out first; a caller is the hash of the credential its
 * request came with, so one caller cannot reference another's items (the credential itself is
 * never kept). In process only: a fleet's replicas do not share it.
 */
export class ResponseItems {
  private readonly items = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly bounds: ItemBounds) {}

  /** The view of one caller's items, from its request headers. */
  forCaller(headers: Readonly<Record<string, string | string[] | undefined>>, keep: boolean): ItemsContext {
    // Hashed only when a request uses items: most requests through a codec never do.
    let scope: string | undefined;
    const caller = () => (scope ??= callerOf(headers));
    return {
      recall: (id) => this.recall(caller(), id),
      remember: (item) => {
        if (keep) this.remember(caller(), item);
      },
    };
  }

  get size(): number {
    return this.items.size;
  }

  private recall(scope: string, id: string): Record<string, unknown> | undefined {
    const text = this.items.get(`${scope} ${id}`);
    return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
  }

  private remember(scope: string, item: Record<string, unknown>): void {
    if (typeof item.id !== 'string') return;
    const key = `${scope} ${item.id}`;
    const text = JSON.stringify(item);
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
