import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { createO200kCounter } from './o200k-counter.js';

/**
 * How a vendor meters prompt tokens, as the simulator counts them (docs/decisions/token-counting.md):
 *
 * - OpenAI and Azure OpenAI, and the open-weight hosts (Groq, Together, Cerebras, Mistral,
 *   DeepSeek, xAI, OpenRouter): the text through OpenAI's `o200k_base` tokenizer (gpt-tokenizer),
 *   plus OpenAI's chat framing, 4 tokens a message (`<|start|>`, role, `<|message|>`, `<|end|>`)
 *   and 3 priming the reply. Exact for the gpt-4o family; for the hosts' own tokenizers (Llama 3,
 *   Mistral, DeepSeek: byte-level BPE vocabularies of similar size) it is the documented
 *   approximation.
 * - Anthropic (and Bedrock, whose models here are Claude): Anthropic publishes no tokenizer for
 *   its current models; four characters a token plus 3 a message, the count the prompt cache's
 *   segments use (prompt-segments.ts). This equals a router's usual estimate: a known gap.
 * - Gemini and Vertex AI: Google documents about 4 characters a token; no framing.
 *
 * Either way the count is not what a router estimates from characters, so a router that reports
 * its own estimate instead of the vendor's usage is caught by the usage check.
 */
export type TokenRule = 'o200k' | 'anthropic' | 'gemini';

const RULES: Record<string, TokenRule> = {
  anthropic: 'anthropic',
  bedrock: 'anthropic',
  gemini: 'gemini',
  'vertex-ai': 'gemini',
};

/** The rule a vendor's prompts are counted by. */
export function tokenRuleFor(vendor: string): TokenRule {
  return RULES[vendor] ?? 'o200k';
}

const o200k = createO200kCounter(countO200k);

/**
 * Loads the tokenizer's ranks now (a second or more on a busy machine) rather than inside the
 * first request, which would stall it and everything queued behind it.
 */
export function warmTokenizer(): void {
  countO200k('warm up');
}

/**
 * Prompt tokens of `text` in `messageCount` messages, as `vendor` meters them; `framed: false`
 * for inputs without chat framing (embeddings).
 */
export function countPromptTokens(vendor: string, text: string, messageCount: number, framed = true): number {
  switch (tokenRuleFor(vendor)) {
    case 'anthropic':
      return Math.max(1, Math.ceil(text.length / 4) + (framed ? 3 * messageCount : 0));
    case 'gemini':
      return Math.max(1, Math.ceil(text.length / 4));
    default:
      // Embedding inputs are joined by newlines in `text` and metered one by one.
      return framed ? o200k(text) + 4 * messageCount + 3 : text.split('\n').reduce((n, t) => n + o200k(t), 0);
  }
}

/**
 * The estimate routers make without a tokenizer: about four characters a token plus three a
 * message. Not what any vendor meters; kept for tests that show the difference.
 */
export function estimateTokens(text: string, messageCount: number): number {
  return Math.ceil(text.length / 4) + 3 * messageCount;
}
