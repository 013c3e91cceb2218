import type { ChatRequest } from '../core/types.js';

/** Characters of an embeddings `input` (token lists at 4 characters a token). */
function inputChars(input: unknown): number {
  if (typeof input === 'string') return input.length;
  if (!Array.isArray(input)) return 0;
  let chars = 0;
  for (const i of input) chars += typeof i === 'number' ? 4 : inputChars(i);
  return chars;
}

/** Prompt tokens estimated as vendors' pre-flight counters do: ~4 characters a token, 3 per message. */
export function estimateInputTokens(req: ChatRequest): number {
  let chars = 0;
  for (const m of req.messages) {
    if (typeof m.content === 'string') chars += m.content.length;
    else if (Array.isArray(m.content))
      for (const p of m.content) if (typeof p.text === 'string') chars += p.text.length;
  }
  if (req.input !== undefined) chars += inputChars(req.input);
  return Math.ceil(chars / 4) + 3 * req.messages.length;
}
