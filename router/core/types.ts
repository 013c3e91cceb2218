/** The vendor API a provider speaks. */
export type VendorKind =
  | 'openai'
  | 'azure-openai'
  | 'anthropic'
  | 'gemini'
  | 'groq'
  | 'mistral'
  | 'deepseek'
  | 'openai-compatible'
  | 'bedrock'
  | 'vertex-ai'
  | 'openrouter'
  | 'cerebras'
  | 'together'
  | 'xai';

/** One OpenAI chat message as clients send it. */
export interface ChatMessage {
  role: string;
  content: string | Array<{ type: string; text?: string; [k: string]: unknown }> | null;
  name?: string;
  [k: string]: unknown;
}

/** The OpenAI chat-completions request the router accepts. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  stop?: string | string[] | null;
  user?: string;
  [k: string]: unknown;
}

/** Tokens counted for one attempt. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** Of `promptTokens`, those the provider read from its prompt cache (absent: none reported). */
  cachedTokens?: number;
  /** Of `promptTokens`, those written to the prompt cache (Anthropic's cache creation). */
  cacheWriteTokens?: number;
  /** True when the provider did not report usage and it was estimated. */
  estimated: boolean;
}

/** A provider, key and model the router can send a request to. */
export interface Target {
  /** `provider/key/model`. */
  id: string;
  provider: string;
  key: string;
  model: string;
}

/** How an attempt ended, as a value: only the public edge turns failures into errors. */
export type AttemptOutcome =
  | { kind: 'ok'; status: number }
  /** `orgWide`: the provider named the limit as the organisation's (every key of it is refused). */
  | { kind: 'rate_limited'; status: number; waitMs?: number; orgWide?: boolean }
  | { kind: 'quota_exhausted'; status: number; waitMs?: number }
  | { kind: 'overloaded'; status: number; waitMs?: number }
  | { kind: 'server_error'; status: number; waitMs?: number }
  /** `held`: the provider sent only keep-alive filler before the first-token timer fired (it queued the request). */
  | { kind: 'timeout'; phase: 'headers' | 'first-token' | 'body'; held?: boolean }
  | { kind: 'network_error'; message: string }
  | { kind: 'auth_error'; status: number }
  | { kind: 'not_found'; status: number }
  | { kind: 'client_error'; status: number; message: string }
  | { kind: 'stream_error'; message: string }
  | { kind: 'aborted' };

/** One upstream attempt, as reported to clients and the state view. */
export interface AttemptRecord {
  target: string;
  provider: string;
  key: string;
  model: string;
  startedAt: number;
  endedAt: number;
  outcome: AttemptOutcome['kind'];
  status?: number;
  waitMs?: number;
  message?: string;
}
