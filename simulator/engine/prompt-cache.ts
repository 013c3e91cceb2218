import { createHash } from 'node:crypto';
import type { VendorId } from '../vendors/types.js';
import type { PromptSegment } from './prompt-segments.js';

/**
 * How one vendor caches prompt prefixes (docs/vendor-facts.md, "Prompt caching"):
 * - `automatic` (OpenAI, Gemini implicit caching): every prompt of at least `minTokens` is cached
 *   at each piece boundary; a hit reads the longest cached prefix, counted in `increment`s above
 *   the minimum (OpenAI: 1024 then 128-token steps).
 * - `explicit` (Anthropic, Bedrock's `cachePoint` and `cache_control`): only prefixes ending at a `cache_control` breakpoint are written (with
 *   the breakpoint's TTL), when at least `minTokens` long; reads find the longest cached prefix at
 *   or before the last breakpoint.
 */
export interface CachePolicy {
  mode: 'automatic' | 'explicit';
  minTokens: number;
  increment: number;
  /** TTL of an automatic entry, refreshed on each hit; explicit entries take their breakpoint's. */
  ttlMs: number;
  /** Whether cache reads are charged to input-token limits (ITPM, TPM). */
  readsCountTowardLimits: boolean;
}

const FIVE_MINUTES = 300_000;

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/**
 * Minimum cacheable prompt per Claude model (Anthropic prompt-caching docs, 2026): 4096 for Opus
 * 4.5/4.6 and Haiku 4.5, 2048 for Sonnet 4.6 and the Haiku 3 family, 1024 for the rest.
 */
function anthropicMinTokens(model: string): number {
  if (/opus-4-[56]|opus-4\.[56]|haiku-4/.test(model)) return 4096;
  if (/sonnet-4-6|sonnet-4\.6|haiku-3|3-haiku|3-5-haiku/.test(model)) return 2048;
  return 1024;
}

/**
 * The models whose cache reads still count toward ITPM (marked † in Anthropic's rate-limit tables);
 * UNCONFIRMED which ones beyond Haiku 3.5 and Opus 3, so `options.cacheReadsCountTowardLimits` overrides.
 */
function anthropicReadsCount(model: string): boolean {
  return /3-5-haiku|haiku-3-5|3-opus|opus-3/.test(model);
}

/** Gemini implicit caching minimum (ai.google.dev caching page, 2026-10): 2048 on 2.5 models, 4096 on later ones. */
function geminiMinTokens(model: string): number {
  return /gemini-2\.5/.test(model) ? 2048 : 4096;
}

/**
 * The cache policy of a vendor's model, or undefined where the simulator models no prompt cache.
 * Scenario options override each figure: `promptCache: false`, `promptCacheMinTokens`,
 * `promptCacheTtl` (ms), `cacheReadsCountTowardLimits`.
 */
export function cachePolicyFor(
  vendor: VendorId,
  model: string,
  options: Readonly<Record<string, unknown>>,
): CachePolicy | undefined {
  if (options.promptCache === false) return undefined;
  let policy: CachePolicy;
  if (vendor === 'openai' || vendor === 'azure-openai') {
    // Cached tokens still count toward TPM: UNCONFIRMED (the guide is silent), hence the option.
    policy = { mode: 'automatic', minTokens: 1024, increment: 128, ttlMs: FIVE_MINUTES, readsCountTowardLimits: true };
  } else if (vendor === 'anthropic') {
    policy = {
      mode: 'explicit',
      minTokens: anthropicMinTokens(model),
      increment: 1,
      ttlMs: FIVE_MINUTES,
      readsCountTowardLimits: anthropicReadsCount(model),
    };
  } else if (vendor === 'bedrock') {
    // Claude's minimums hold on Bedrock; other models (Nova) take 1K tokens a checkpoint. Cache
    // reads do not count toward Bedrock's token quotas (AWS's Bedrock prompt-caching skill).
    policy = {
      mode: 'explicit',
      minTokens: /anthropic\.claude/.test(model) ? anthropicMinTokens(model) : 1024,
      increment: 1,
      ttlMs: FIVE_MINUTES,
      readsCountTowardLimits: false,
    };
  } else if (vendor === 'gemini' || vendor === 'vertex-ai') {
    // Implicit caches' lifetime and their quota treatment are undocumented: UNCONFIRMED, options.
    policy = {
      mode: 'automatic',
      minTokens: geminiMinTokens(model),
      increment: 1,
      ttlMs: FIVE_MINUTES,
      readsCountTowardLimits: true,
    };
  } else return undefined;
  policy.minTokens = num(options.promptCacheMinTokens) ?? policy.minTokens;
  policy.ttlMs = num(options.promptCacheTtl) ?? policy.ttlMs;
  if (typeof options.cacheReadsCountTowardLimits === 'boolean')
    policy.readsCountTowardLimits = options.cacheReadsCountTowardLimits;
  return policy;
}

/** What a request would read from and write to the cache. */
export interface CacheLookup {
  /** Prompt tokens served from the cache. */
  read: number;
  /** Prompt tokens written to the cache (Anthropic's cache creation; 0 for automatic caches, which do not bill writes). */
  write: number;
  /** Prefix hashes to store once the request is admitted, with their TTLs. */
  pending: Array<{ hash: string; ttlMs: number }>;
  /** The entry that was hit, refreshed on commit. */
  hit?: { hash: string; ttlMs: number };
}

interface Entry {
  expiresAt: number;
  ttlMs: number;
}

const NOTHING: CacheLookup = { read: 0, write: 0, pending: [] };

/**
 * A provider's prompt caches: one per organisation (each key its own unless the scenario groups
 * keys into an org) and model, holding hashed prefixes with expiry times. Time comes in as `now`,
 * so it is as deterministic as the clock driving it. Bounded: past `maxEntries` the entries used
 * least recently go first.
 */
export class PromptCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxEntries = 100_000) {}

  get size(): number {
    return this.entries.size;
  }

  /** What `segments` would read and write at `now`; nothing changes until `commit`. */
  lookup(
    scope: string,
    model: string,
    segments: readonly PromptSegment[],
    totalTokens: number,
    policy: CachePolicy,
    now: number,
  ): CacheLookup {
    if (segments.length === 0) return NOTHING;
    // A segment's tokens follow from its text alone: if all of this prompt's are fewer than the
    // minimum, no prefix of it was ever stored (by any request) nor would be, so there is nothing
    // to hash or find.
    let all = 0;
    for (const s of segments) all += s.tokens;
    if (all < policy.minTokens) return NOTHING;
    const h = createHash('sha256').update(`${scope}\u0000${model}\u0000`);
    const hashes: string[] = [];
    const cum: number[] = [];
    let tokens = 0;
    let lastBreakpoint = -1;
    for (let i = 0; i < segments.length; i++) {
      const s = segments[i]!;
      h.update(s.text).update('\u0002');
      hashes.push(h.copy().digest('base64'));
      tokens = Math.min(totalTokens, tokens + s.tokens);
      cum.push(tokens);
      if (s.breakpointTtlMs !== undefined) lastBreakpoint = i;
    }
    const limit = policy.mode === 'explicit' ? lastBreakpoint : segments.length - 1;
    if (limit < 0) return NOTHING;
    let hitAt = -1;
    for (let i = limit; i >= 0; i--) {
      const e = this.entries.get(hashes[i]!);
      if (e && e.expiresAt > now) {
        hitAt = i;
        break;
      }
    }
    const read = hitAt < 0 ? 0 : counted(cum[hitAt]!, policy);
    const pending: CacheLookup['pending'] = [];
    let write = 0;
    if (policy.mode === 'explicit') {
      for (let i = hitAt + 1; i <= limit; i++) {
        const ttl = segments[i]!.breakpointTtlMs;
        if (ttl !== undefined && cum[i]! >= policy.minTokens) pending.push({ hash: hashes[i]!, ttlMs: ttl });
      }
      if (pending.length > 0) write = cum[limit]! - read;
    } else {
      for (let i = hitAt + 1; i <= limit; i++)
        if (cum[i]! >= policy.minTokens) pending.push({ hash: hashes[i]!, ttlMs: policy.ttlMs });
    }
    const hit =
      hitAt < 0
        ? undefined
        : { hash: hashes[hitAt]!, ttlMs: segments[hitAt]!.breakpointTtlMs ?? this.entries.get(hashes[hitAt]!)!.ttlMs };
    return { read, write, pending, hit };
  }

  /** Stores what an admitted request wrote and refreshes what it read (a hit restarts the TTL). */
  commit(found: CacheLookup, now: number): void {
    if (found.hit) this.put(found.hit.hash, found.hit.ttlMs, now);
    for (const p of found.pending) this.put(p.hash, p.ttlMs, now);
  }

  private put(hash: string, ttlMs: number, now: number): void {
    this.entries.delete(hash);
    this.entries.set(hash, { expiresAt: now + ttlMs, ttlMs });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** Cached tokens as the vendor reports them: none below the minimum, then in whole increments above it. */
function counted(tokens: number, policy: CachePolicy): number {
  if (tokens < policy.minTokens) return 0;
  if (policy.increment <= 1) return tokens;
  return policy.minTokens + Math.floor((tokens - policy.minTokens) / policy.increment) * policy.increment;
}
