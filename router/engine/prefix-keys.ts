import { createHash } from 'node:crypto';
import { messageText } from '../adapters/openai-chunks.js';
import type { ChatRequest } from '../core/types.js';

/**
 * The identities of a request's cacheable prompt prefixes, longest first, for cache affinity: the
 * client's `prompt_cache_key` when it names one (it names the conversation), else a hash of the
 * prompt at each message boundary past `minTokens` (about four characters a token), tools first
 * as vendors order them. Keyed by the model asked for: targets differ per model.
 */
export function prefixKeys(req: ChatRequest, minTokens: number): string[] {
  const key = req.prompt_cache_key;
  if (typeof key === 'string' && key.length > 0) return [`k:${req.model}\u0000${key}`];
  const h = createHash('sha256').update(req.model).update('\u0000');
  if (req.tools !== undefined) h.update(JSON.stringify(req.tools));
  const minChars = minTokens * 4;
  let chars = 0;
  const keys: string[] = [];
  for (const m of req.messages) {
    const text = messageText(m.content);
    h.update(m.role).update('\u0001').update(text).update('\u0002');
    chars += text.length;
    if (chars >= minChars) keys.push(h.copy().digest('base64url'));
  }
  return keys.reverse();
}

/** The prefixes worth remembering after a request was served: the whole prompt and its shortest cacheable prefix. */
export function keysToRemember(keys: readonly string[]): string[] {
  if (keys.length <= 2) return [...keys];
  return [keys[0]!, keys[keys.length - 1]!];
}
