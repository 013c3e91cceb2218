import { parseArguments, type ChatCompletionBody, type ChatUsage } from './chat-frames.js';

/** OpenAI finish reasons as Anthropic stop reasons. */
export const STOP_REASON: Record<string, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

/** Anthropic's error type for an HTTP status. */
export function anthropicErrorType(status: number): string {
  if (status === 400 || status === 415 || status === 405) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 503 || status === 529) return 'overloaded_error';
  if (status === 504) return 'timeout_error';
  return 'api_error';
}

/** An error body in Anthropic's shape; `extra` (the router's attempts) rides inside `error`. */
export function anthropicErrorBody(type: string, message: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ type: 'error', error: { type, message, ...extra } });
}

/** Anthropic usage from OpenAI usage: cached prompt tokens as cache reads, cache writes as writes. */
export function anthropicUsage(u: ChatUsage | undefined): Record<string, number> {
  const cached = u?.prompt_tokens_details?.cached_tokens ?? 0;
  const written = u?.cache_creation_input_tokens ?? 0;
  return {
    input_tokens: Math.max(0, (u?.prompt_tokens ?? 0) - cached - written),
    cache_creation_input_tokens: written,
    cache_read_input_tokens: cached,
    output_tokens: u?.completion_tokens ?? 0,
  };
}

/** A message id in Anthropic's form. */
export const messageId = (id: string | undefined) => (id?.startsWith('msg_') ? id : `msg_${id ?? 'router'}`);

/** A chat completion as an Anthropic `message`: text and `tool_use` blocks, stop reason and usage. */
export function encodeMessage(text: string, requestedModel: string): string {
  const j = JSON.parse(text) as ChatCompletionBody;
  const choice = j.choices?.[0];
  const msg = choice?.message;
  const content: unknown[] = [];
  if (typeof msg?.content === 'string' && msg.content !== '') content.push({ type: 'text', text: msg.content });
  else if (typeof msg?.refusal === 'string') content.push({ type: 'text', text: msg.refusal });
  for (const c of msg?.tool_calls ?? [])
    content.push({ type: 'tool_use', id: c.id, name: c.function.name, input: parseArguments(c.function.arguments) });
  if (content.length === 0) content.push({ type: 'text', text: '' });
  return JSON.stringify({
    id: messageId(j.id),
    type: 'message',
    role: 'assistant',
    model: j.model ?? requestedModel,
    content,
    stop_reason: STOP_REASON[choice?.finish_reason ?? 'stop'] ?? 'end_turn',
    stop_sequence: null,
    usage: anthropicUsage(j.usage),
  });
}
