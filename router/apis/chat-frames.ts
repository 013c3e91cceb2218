/** One OpenAI chat chunk, as the engine relays them. */
export interface ChatChunk {
  id?: string;
  model?: string;
  created?: number;
  choices?: Array<{
    index?: number;
    delta?: {
      content?: string | null;
      refusal?: string | null;
      tool_calls?: Array<{
        index?: number;
        id?: string;
        type?: string;
        function?: { name?: string; arguments?: string };
      }>;
    };
    finish_reason?: string | null;
  }>;
  usage?: ChatUsage | null;
  error?: { message?: string; type?: string; code?: string | null };
}

/** OpenAI usage, with the cached-token details some vendors report. */
export interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  /** Of `prompt_tokens`, those written to the prompt cache (Anthropic's, where LiteLLM reports them). */
  cache_creation_input_tokens?: number | null;
}

/** What one frame held: a chunk, the terminator, or an error event. */
export type ChatFrame =
  { kind: 'chunk'; chunk: ChatChunk } | { kind: 'done' } | { kind: 'error'; error: NonNullable<ChatChunk['error']> };

/** Splits relayed `data: …\n\n` text into frames; frames that are not JSON are skipped (the engine writes only JSON). */
export function readChatFrames(text: string): ChatFrame[] {
  const out: ChatFrame[] = [];
  for (const block of text.split('\n\n')) {
    const line = block.trim();
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '[DONE]') {
      out.push({ kind: 'done' });
      continue;
    }
    let j: ChatChunk;
    try {
      j = JSON.parse(data) as ChatChunk;
    } catch {
      continue;
    }
    if (j.error) out.push({ kind: 'error', error: j.error });
    else out.push({ kind: 'chunk', chunk: j });
  }
  return out;
}

/** A JSON text parsed, or `{}` when it is not an object (tool arguments cut short). */
export function parseArguments(text: string | undefined): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The chat completion the engine answered with. */
export interface ChatCompletionBody {
  id?: string;
  model?: string;
  created?: number;
  choices?: Array<{
    message?: {
      content?: string | null;
      refusal?: string | null;
      tool_calls?: Array<{ id: string; type?: string; function: { name: string; arguments: string } }>;
    };
    finish_reason?: string | null;
  }>;
  usage?: ChatUsage;
}
