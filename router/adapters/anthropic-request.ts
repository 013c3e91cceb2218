import type { ChatRequest } from '../core/types.js';
import {
  argumentsOf,
  historyTools,
  jsonFormatOf,
  partsOf,
  toolCallsOf,
  toolChoiceOf,
  toolsOf,
  type Part,
} from './chat-parts.js';
import { pushTurn, type Block, type Turn } from './push-turn.js';

function block(p: Part): Block {
  if (p.kind === 'text') return { type: 'text', text: p.text, ...p.hints };
  const source =
    p.data !== undefined ? { type: 'base64', media_type: p.mediaType, data: p.data } : { type: 'url', url: p.url };
  return { type: 'image', source, ...p.hints };
}

/**
 * The neutral chat request as a Messages body's parts: system messages as `system` (blocks when
 * they carry `cache_control`), assistant tool calls as `tool_use` blocks, tool messages as
 * `tool_result` blocks at the head of the next user turn (same-role turns merged), images as
 * base64 or url sources, function tools with `input_schema`, `tool_choice` as auto/any/tool/none,
 * a JSON schema `response_format` as `output_format`.
 * @see https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use
 */
export function toAnthropic(req: ChatRequest): Record<string, unknown> {
  const system: Block[] = [];
  const messages: Turn[] = [];
  const push = (role: Turn['role'], content: Block[]) => pushTurn(messages, role, content);
  for (const m of req.messages) {
    if (m.role === 'system' || m.role === 'developer') {
      for (const p of partsOf(m.content)) if (p.kind === 'text') system.push(block(p));
    } else if (m.role === 'tool') {
      const text = partsOf(m.content)
        .map((p) => (p.kind === 'text' ? p.text : ''))
        .join('');
      push('user', [{ type: 'tool_result', tool_use_id: String(m.tool_call_id ?? ''), content: text }]);
    } else if (m.role === 'assistant') {
      const content = partsOf(m.content)
        .filter((p) => p.kind === 'text' && p.text !== '')
        .map(block);
      for (const c of toolCallsOf(m))
        content.push({ type: 'tool_use', id: c.id, name: c.function.name, input: argumentsOf(c) });
      push('assistant', content);
    } else push('user', partsOf(m.content).map(block));
  }
  // A lone plain text block goes as a string, as clients write it.
  const body: Record<string, unknown> = {
    messages: messages.map((t) =>
      t.content.length === 1 && t.content[0]!.type === 'text' && t.content[0]!.cache_control === undefined
        ? { role: t.role, content: t.content[0]!.text }
        : t,
    ),
  };
  if (system.length > 0)
    body.system = system.some((b) => b.cache_control !== undefined) ? system : system.map((b) => b.text).join('\n\n');
  const tools = toolsOf(req);
  const choice = toolChoiceOf(req);
  // Tool blocks need tools defined even when none are offered now: then the model may call none.
  const declared = tools.length > 0 ? tools : historyTools(req);
  if (declared.length > 0) {
    body.tools = declared.map((t) => ({
      name: t.name,
      ...('description' in t && t.description !== undefined ? { description: t.description } : {}),
      input_schema: t.parameters,
      ...t.hints,
    }));
    const parallel = req.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
    if (tools.length === 0 || choice?.mode === 'none') body.tool_choice = { type: 'none' };
    else if (choice?.mode === 'required') body.tool_choice = { type: 'any', ...parallel };
    else if (choice?.mode === 'function') body.tool_choice = { type: 'tool', name: choice.name, ...parallel };
    else if (req.parallel_tool_calls === false) body.tool_choice = { type: 'auto', ...parallel };
  }
  const json = jsonFormatOf(req);
  if (json?.schema !== undefined) body.output_format = { type: 'json_schema', schema: json.schema };
  return body;
}
