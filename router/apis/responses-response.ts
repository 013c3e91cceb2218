import type { ChatCompletionBody, ChatUsage } from './chat-frames.js';

/** Responses usage from chat usage. */
export function responsesUsage(u: ChatUsage | undefined): Record<string, unknown> {
  const input = u?.prompt_tokens ?? 0;
  const output = u?.completion_tokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u?.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

/** A response id in the Responses API's form. */
export const responseId = (id: string | undefined) => (id?.startsWith('resp_') ? id : `resp_${id ?? 'router'}`);

/** A finished assistant message item. */
export function messageItem(id: string, text: string, status: string): Record<string, unknown> {
  return {
    id,
    type: 'message',
    status,
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
  };
}

/** A function call item. */
export function callItem(callId: string, name: string, args: string, status: string): Record<string, unknown> {
  return { id: `fc_${callId}`, type: 'function_call', status, arguments: args, call_id: callId, name };
}

/** The `response` object around an output list. */
export function responseObject(
  id: string,
  model: string,
  createdAt: number,
  status: 'in_progress' | 'completed' | 'incomplete',
  output: unknown[],
  usage: Record<string, unknown> | null,
): Record<string, unknown> {
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: null,
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    store: false,
    tool_choice: 'auto',
    tools: [],
    text: { format: { type: 'text' } },
    usage,
    metadata: {},
  };
}

/** A chat completion as a Responses `response`: a message item and one `function_call` item per tool call. */
export function encodeResponse(
  text: string,
  requestedModel: string,
  remember?: (item: Record<string, unknown>) => void,
): string {
  const j = JSON.parse(text) as ChatCompletionBody;
  const choice = j.choices?.[0];
  const msg = choice?.message;
  const id = responseId(j.id);
  const incomplete = choice?.finish_reason === 'length';
  const output: unknown[] = [];
  const content = typeof msg?.content === 'string' ? msg.content : (msg?.refusal ?? '');
  if (content !== '' || !msg?.tool_calls?.length)
    output.push(messageItem(`msg_${id.slice(5)}`, content, incomplete ? 'incomplete' : 'completed'));
  for (const c of msg?.tool_calls ?? [])
    output.push(callItem(c.id, c.function.name, c.function.arguments, 'completed'));
  const status = incomplete ? 'incomplete' : 'completed';
  if (remember) for (const item of output) remember(item as Record<string, unknown>);
  return JSON.stringify(
    responseObject(id, j.model ?? requestedModel, j.created ?? 0, status, output, responsesUsage(j.usage)),
  );
}
