import type OpenAI from 'openai';

/** A tool the agent can call: its schema for the model, and the code that runs it. */
export interface AgentTool {
  description: string;
  parameters: Record<string, unknown>;
  run(args: Record<string, unknown>): Promise<string> | string;
}

/** What one turn of the loop did: the model's tool calls, or its final answer. */
export interface AgentTurn {
  /** The provider that answered, as the router reports it (`x-throttlelab-provider`). */
  provider: string | null;
  toolCalls: Array<{ name: string; args: Record<string, unknown>; result: string }>;
  answer?: string;
}

/**
 * The smallest agent loop: ask the model with the tools on offer; while it answers with tool
 * calls, run them and send their results back; stop at its first plain answer (or `maxTurns`).
 * It speaks OpenAI chat completions to any endpoint, here the throttlelab router, which may send
 * each turn to a different vendor.
 */
export async function runAgent(
  client: OpenAI,
  options: { model: string; question: string; tools: Record<string, AgentTool>; maxTurns?: number },
): Promise<{ answer: string | undefined; turns: AgentTurn[] }> {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: options.question }];
  const tools = Object.entries(options.tools).map(([name, t]) => ({
    type: 'function' as const,
    function: { name, description: t.description, parameters: t.parameters },
  }));
  const turns: AgentTurn[] = [];
  for (let i = 0; i < (options.maxTurns ?? 8); i++) {
    const { data, response } = await client.chat.completions
      .create({ model: options.model, messages, tools })
      .withResponse();
    const message = data.choices[0]!.message;
    const turn: AgentTurn = { provider: response.headers.get('x-throttlelab-provider'), toolCalls: [] };
    turns.push(turn);
    const calls = (message.tool_calls ?? []).filter((c) => c.type === 'function');
    if (calls.length === 0) {
      turn.answer = message.content ?? '';
      return { answer: turn.answer, turns };
    }
    messages.push({ role: 'assistant', content: message.content, tool_calls: calls });
    for (const call of calls) {
      const tool = options.tools[call.function.name];
      const args = JSON.parse(call.function.arguments || '{}') as Record<string, unknown>;
      const result = tool ? await tool.run(args) : `unknown tool ${call.function.name}`;
      turn.toolCalls.push({ name: call.function.name, args, result });
      messages.push({ role: 'tool', tool_call_id: call.id, content: result });
    }
  }
  return { answer: undefined, turns };
}
