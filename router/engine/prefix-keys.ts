import { messageText } from '../adapters/openai-chunks.js';
import type { Prefix } from '../core/cache-affinity.js';
import type { ChatRequest, VendorKind } from '../core/types.js';
import { PrefixHasher } from './prefix-hasher.js';

/**
 * The vendors that do not charge cache reads to their input-token limits (Anthropic's ITPM on
 * current models, docs/vendor-facts.md §18.2): a request going where its prefix is warm is
 * admitted for the tokens after the prefix only.
 */
const CACHE_READS_FREE = new Set<VendorKind>(['anthropic']);

/** The input tokens a target's limits are charged for a request whose `warm` prefix tokens are cached there. */
export function uncachedInput(vendor: VendorKind, inputTokens: number, warmTokens: number): number {
  return CACHE_READS_FREE.has(vendor) ? Math.max(0, inputTokens - warmTokens) : inputTokens;
}

/**
 * The tools as the vendor's prompt holds them, whatever API they came through: keys sorted at every
 * depth (each inbound codec orders a tool's fields its own way) and cache breakpoints left out (they
 * say where the vendor caches, not what). Tools are few and small: sorting them costs little.
 */
function toolsIdentity(tools: unknown): string {
  return JSON.stringify(tools, (key, value: unknown) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort())
      if (k !== 'cache_control') sorted[k] = (value as Record<string, unknown>)[k];
    return sorted;
  });
}

/**
 * The identities of a request's cacheable prompt prefixes, longest first, for cache affinity: a
 * hash of the prompt at each message boundary past `minTokens` (about four characters a token),
 * tools first as vendors order them, then the client's `prompt_cache_key` when it names one (it
 * names the conversation, not a prompt: its size is unknown, so it claims no tokens, and it is
 * looked up only when no hash is warm). Both, because the vendor caches the prompt whatever the
 * client named it: a conversation whose turns carry the key only sometimes is still one prefix,
 * and keying it by name alone sent its unnamed turns elsewhere. Keyed by the model asked for:
 * targets differ per model. The hash (PrefixHasher, chained XXH64) is 64 bits, not
 * cryptographic: a collision only makes a prompt look warm where it is not
 * (docs/decisions/cache-affinity.md).
 */
export function prefixKeys(req: ChatRequest, minTokens: number): Prefix[] {
  const h = new PrefixHasher().update(req.model);
  if (req.tools !== undefined) h.update(toolsIdentity(req.tools));
  const minChars = minTokens * 4;
  let chars = 0;
  const out: Prefix[] = [];
  for (const m of req.messages) {
    const text = messageText(m.content);
    h.update(m.role).update(text);
    chars += text.length;
    if (chars >= minChars) out.push({ key: h.key(), tokens: Math.floor(chars / 4) });
  }
  out.reverse();
  const key = req.prompt_cache_key;
  if (typeof key === 'string' && key.length > 0)
    out.push({ key: `k:${req.model}\u0000${key}`, tokens: 0, named: true });
  return out;
}

/**
 * The prefixes worth remembering after a request was served: the whole prompt and its shortest
 * cacheable prefix, both claiming only the shortest one's tokens (how much of the prompt the
 * vendor really cached depends on breakpoints the router cannot see: it errs on the safe side),
 * and the client's name for it, if any.
 */
export function prefixesToRemember(prefixes: readonly Prefix[]): Prefix[] {
  const hashed = prefixes.filter((p) => p.named !== true);
  const named = prefixes.filter((p) => p.named === true);
  if (hashed.length <= 1) return [...hashed, ...named];
  const shortest = hashed[hashed.length - 1]!;
  return [{ key: hashed[0]!.key, tokens: shortest.tokens }, shortest, ...named];
}
