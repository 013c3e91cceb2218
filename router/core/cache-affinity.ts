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
}

/** Where a prefix is warm, and how many tokens of the prompt it covers. */
export interface WarmPrefix {
  target: string;
  tokens: number;
}

interface Warm extends WarmPrefix {
  expiresAt: number;
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

  /** `target` served a request with these prefixes at `now`: they are warm there now. */
  remember(prefixes: readonly Prefix[], target: string, now: number): void {
    const expiresAt = now + this.options.ttlMs;
    for (const p of prefixes) {
      this.warm.delete(p.key);
      this.warm.set(p.key, { target, tokens: p.tokens, expiresAt });
    }
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
