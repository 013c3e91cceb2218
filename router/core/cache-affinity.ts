/** How long and how many prefixes the router remembers. */
export interface CacheAffinityOptions {
  /** How long a prefix stays warm at the target that last served it (vendors keep 5 min from last use). */
  ttlMs: number;
  /** Most prefixes remembered; past it the ones used least recently are forgotten. */
  maxEntries: number;
}

/** A prompt prefix: its identity and its estimated tokens. */
export interface Prefix {
  key: string;
  tokens: number;
  /** A name the client gave the conversation (`prompt_cache_key`), not a hash of the prompt. */
  named?: boolean;
}

/** Where a prefix is warm, and how many tokens of the prompt it covers. */
export interface WarmPrefix {
  target: string;
  tokens: number;
}

interface Warm extends WarmPrefix {
  expiresAt: number;
  /** Claimed by a request still in flight there: nothing is known to be cached yet. */
  claimed?: boolean;
}

/**
 * Which target last served a prompt prefix, so that the next request sharing it goes where the
 * provider's prompt cache is warm. Keys are opaque prefix identities (hashes, longest first);
 * values expire after the TTL, counted from the last use, and the map is bounded. Pure: time
 * comes in as `now`.
 */
export class CacheAffinity {
  private readonly warm = new Map<string, Warm>();

  constructor(private readonly options: CacheAffinityOptions) {}

  get size(): number {
    return this.warm.size;
  }

  /** Where the longest of `prefixes` (longest first) is warm, if anywhere. */
  lookup(prefixes: readonly Prefix[], now: number): WarmPrefix | undefined {
    for (const p of prefixes) {
      const w = this.warm.get(p.key);
      if (!w) continue;
      if (w.expiresAt <= now) {
        this.warm.delete(p.key);
        continue;
      }
      return { target: w.target, tokens: w.tokens };
    }
    return undefined;
  }

  /**
   * A request with these prefixes, warm nowhere, is being sent to `target` at `now`: the ones no
   * target holds are claimed for it, so that requests sharing the prefix that arrive before it is
   * answered follow it there rather than write the same prefix at another key. A claim reserves
   * nothing (0 tokens): the vendor has cached nothing until the request is answered.
   */
  claim(prefixes: readonly Prefix[], target: string, now: number): void {
    const expiresAt = now + this.options.ttlMs;
    for (const p of prefixes) {
      const w = this.warm.get(p.key);
      if (w && w.expiresAt > now) continue;
      this.warm.delete(p.key);
      this.warm.set(p.key, { target, tokens: 0, expiresAt, claimed: true });
    }
    this.evict();
  }

  /** The request that claimed these prefixes at `target` failed there: its claims, if still standing, go. */
  release(prefixes: readonly Prefix[], target: string): void {
    for (const p of prefixes) {
      const w = this.warm.get(p.key);
      if (w?.claimed === true && w.target === target) this.warm.delete(p.key);
    }
  }

  /** `target` served a request with these prefixes at `now`: they are warm there now. */
  remember(prefixes: readonly Prefix[], target: string, now: number): void {
    const expiresAt = now + this.options.ttlMs;
    for (const p of prefixes) {
      this.warm.delete(p.key);
      this.warm.set(p.key, { target, tokens: p.tokens, expiresAt });
    }
    this.evict();
  }

  private evict(): void {
    while (this.warm.size > this.options.maxEntries) this.warm.delete(this.warm.keys().next().value!);
  }
}

/**
 * The ranking with the warm target first when it is among the targets that can serve now (has
 * capacity, circuits passable); otherwise the ranking as it was, so affinity never waits for a
 * busy or failing target.
 */
export function preferWarm<T extends { target: string }>(ranked: readonly T[], warm: string | undefined): T[] {
  if (warm === undefined) return [...ranked];
  const i = ranked.findIndex((r) => r.target === warm);
  if (i <= 0) return [...ranked];
  return [ranked[i]!, ...ranked.slice(0, i), ...ranked.slice(i + 1)];
}

/**
 * The ranking for a request whose prefix is warm nowhere: the ranking picks the provider and
 * model, and of that provider's keys for the model the one with the most capacity left goes first
 * (ties keep the ranking's order). Each key has its own prompt cache, so wherever the prefix goes
 * it is written in full, and every later turn of the conversation comes back to that key: placed
 * by speed alone, new conversations pile onto the fastest key until its input-token limit runs
 * dry, and the conversations warm there are then written again at other keys.
 */
export function placeCold<T extends { provider: string; model: string }>(
  ranked: readonly T[],
  headroom: (t: T) => number,
): T[] {
  const first = ranked[0];
  if (first === undefined) return [];
  let best = 0;
  let bestRoom = headroom(first);
  for (let i = 1; i < ranked.length; i++) {
    const t = ranked[i]!;
    if (t.provider !== first.provider || t.model !== first.model) continue;
    const room = headroom(t);
    if (room > bestRoom) {
      best = i;
      bestRoom = room;
    }
  }
  return best === 0 ? [...ranked] : [ranked[best]!, ...ranked.slice(0, best), ...ranked.slice(best + 1)];
}
