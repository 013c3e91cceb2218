import xxhash from 'xxhash-wasm';

type H64 = (input: string, seed?: bigint) => bigint;
let h64: H64 | undefined;
let loading: Promise<void> | undefined;

/**
 * Instantiates xxhash-wasm once (under a millisecond of CPU). Not a top-level await: a module
 * with one cannot be `require()`d, and CommonJS hosts load the router that way. `Router.warmUp`
 * awaits this, and a request that needs a prefix key before it is ready awaits it too, so hashing
 * stays synchronous once it is loaded.
 */
export function loadPrefixHasher(): Promise<void> {
  return (loading ??= xxhash().then((x) => void (h64 = x.h64)));
}

/** Whether `PrefixHasher` can hash now (`loadPrefixHasher` has finished). */
export function prefixHasherLoaded(): boolean {
  return h64 !== undefined;
}

/**
 * A running hash of a sequence of strings, whose value can be read after any of them for next to
 * nothing: cache affinity reads it at each message boundary of a prompt. Each string's UTF-8 goes
 * through XXH64 (xxhash-wasm) seeded with the value so far, a chain with no state to copy at a
 * boundary (a streaming hasher's digest costs a copy of its state at each of them, three times
 * slower here); one string per link keeps the sequence unambiguous (`["ab", "c"]` and
 * `["a", "bc"]` differ). Keys are standard XXH64 values, so the same in every process.
 *
 * Not cryptographic, 64 bits, and lone surrogates encode as U+FFFD: a collision (accidental or
 * crafted) makes a prompt look warm where it is not, which costs what a vendor's eviction costs, a
 * cache miss (docs/decisions/cache-affinity.md).
 */
export class PrefixHasher {
  private value = 0n;

  /** Feeds `s`. */
  update(s: string): this {
    if (h64 === undefined) throw new Error('PrefixHasher used before loadPrefixHasher() finished');
    this.value = h64(s, this.value);
    return this;
  }

  /** The hash of everything fed so far, in hexadecimal; feeding may go on. */
  key(): string {
    return this.value.toString(16);
  }
}
