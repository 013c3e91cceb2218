import type { ChatRequest } from '../core/types.js';
import { argumentsOf, historyTools, partsOf, toolCallsOf, toolChoiceOf, toolsOf, type Part } from './chat-parts.js';
import { pushTurn, type Block, type Turn } from './push-turn.js';

const FORMATS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

function block(p: Part): Block | undefined {
  if (p.kind === 'text') return { text: p.text };
  // Converse takes image bytes only (base64 in JSON); a URL cannot be passed on.
  if (p.data === undefined || !FORMATS[p.mediaType ?? '']) return undefined;
  return { image: { format: FORMATS[p.mediaType!], source: { bytes: p.data } } };
}

/** Converse's cache checkpoint: the content before it is cached (Anthropic's `cache_control` on the block before). */
const CACHE_POINT: Block = Object.freeze({ cachePoint: Object.freeze({ type: 'default' }) });
/** Checkpoints a request may carry, as Anthropic: more are refused. */
const MAX_CACHE_POINTS = 4;

/**
 * Converse refuses a user turn that holds both `toolResult` blocks and conversation blocks ("Conversation
 * blocks and tool result blocks cannot be provided in the same turn."), which merging a tool message
 * with the user message after it would make; and it requires turns to alternate, so the user's text
 * cannot go in a turn of its own either. It goes into the last tool result's content instead (text and
 * images are both allowed there), after the tool's own output: nothing invented, nothing dropped.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolResultBlock.html
 */
function keepToolResultsApart(turn: Turn): void {
  const results = turn.content.filter((b) => 'toolResult' in b);
  if (results.length === 0 || results.length === turn.content.length) return;
  const last = results.at(-1)!.toolResult as { content: Block[] };
  for (const b of turn.content) if (!('toolResult' in b)) last.content.push(b);
  turn.content = results;
}

/**
 * The neutral chat request as a Converse body: system messages as `system` blocks, same-role
 * turns merged, assistant tool calls as `toolUse` blocks, tool messages as `toolResult` blocks (a user
 * message that follows them in the same turn carried inside the last one),
 * base64 images as `image` blocks, function tools as `toolConfig` (`toolSpec` with `inputSchema.json`).
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use-inference-call.html
 */
export function toConverse(req: ChatRequest, maxTokens: number): Record<string, unknown> {
  const system: Block[] = [];
  const messages: Turn[] = [];
  const push = (role: Turn['role'], content: Block[]) => pushTurn(messages, role, content);
  // A client's cache hints (`cache_control` on a part or a tool) become `cachePoint` blocks after
  // what they mark, the first four of them; without them no prompt is cached through Bedrock.
  let points = 0;
  const mark = (out: Block[], hints: Part['hints']) => {
    if (hints.cache_control != null && points < MAX_CACHE_POINTS) {
      out.push(CACHE_POINT);
      points++;
    }
  };
  const blocks = (parts: Part[]) => {
    const out: Block[] = [];
    for (const p of parts) {
      const b = block(p);
      if (!b) continue;
      out.push(b);
      mark(out, p.hints);
    }
    return out;
  };
  for (const m of req.messages) {
    if (m.role === 'system' || m.role === 'developer') {
      for (const p of partsOf(m.content))
        if (p.kind === 'text') {
          system.push({ text: p.text });
          mark(system, p.hints);
        }
    } else if (m.role === 'tool') {
      const text = partsOf(m.content)
        .map((p) => (p.kind === 'text' ? p.text : ''))
        .join('');
      push('user', [{ toolResult: { toolUseId: String(m.tool_call_id ?? ''), content: [{ text }] } }]);
    } else if (m.role === 'assistant') {
      const content = blocks(partsOf(m.content).filter((p) => p.kind !== 'text' || p.text !== ''));
      for (const c of toolCallsOf(m))
        content.push({ toolUse: { toolUseId: c.id, name: c.function.name, input: argumentsOf(c) } });
      push('assistant', content);
    } else push('user', blocks(partsOf(m.content)));
  }
  for (const t of messages) if (t.role === 'user') keepToolResultsApart(t);
  // Anthropic's automatic caching (a top-level `cache_control`) marks the last block: a cachePoint
  // ends the last turn, unless that turn hands back tool results, where none is known to be allowed.
  const last = messages.at(-1);
  if (req.cache_control != null && points < MAX_CACHE_POINTS && last && !last.content.some((b) => 'toolResult' in b))
    last.content.push(CACHE_POINT);
  const inferenceConfig: Record<string, unknown> = { maxTokens };
  if (typeof req.temperature === 'number') inferenceConfig.temperature = req.temperature;
  if (typeof req.top_p === 'number') inferenceConfig.topP = req.top_p;
  if (req.stop) inferenceConfig.stopSequences = Array.isArray(req.stop) ? req.stop : [req.stop];
  const body: Record<string, unknown> = { messages, ...(system.length > 0 ? { system } : {}), inferenceConfig };
  const tools = toolsOf(req);
  const choice = toolChoiceOf(req);
  // Converse refuses toolUse/toolResult blocks without a toolConfig, and has no `none` choice:
  // tools withheld (none, or none offered) are still declared when the history used them.
  const offered = choice?.mode === 'none' ? [] : tools;
  const declared = offered.length > 0 ? offered : historyTools(req);
  if (declared.length > 0) {
    const specs: Block[] = [];
    for (const t of declared) {
      specs.push({
        toolSpec: {
          name: t.name,
          ...('description' in t && t.description !== undefined ? { description: t.description } : {}),
          inputSchema: { json: t.parameters },
        },
      });
      if ('hints' in t) mark(specs, t.hints);
    }
    const toolConfig: Record<string, unknown> = { tools: specs };
    if (offered.length > 0 && choice?.mode === 'required') toolConfig.toolChoice = { any: {} };
    else if (offered.length > 0 && choice?.mode === 'function') toolConfig.toolChoice = { tool: { name: choice.name } };
    body.toolConfig = toolConfig;
  }
  return body;
}
