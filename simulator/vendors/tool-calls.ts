import type { Rng } from '../core/rng.js';
import type { ErrorSpec, ToolCallSpec, ToolOffer } from './types.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const WORDS = ['Oslo', 'Paris', 'alpha', 'blue', 'report', 'today'];

/** A value for a JSON schema: the first enum member, or a seeded value of its type; objects recurse (bounded). */
function valueFor(schema: unknown, rng: Rng, depth: number): unknown {
  if (!isObj(schema) || depth > 4) return 'x';
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (schema.type) {
    case 'integer':
      return Math.floor(rng.next() * 100);
    case 'number':
      return Math.round(rng.next() * 1000) / 10;
    case 'boolean':
      return rng.next() < 0.5;
    case 'array':
      return [valueFor(schema.items, rng, depth + 1)];
    case 'object':
      return argsFor(schema, rng, depth + 1);
    default:
      return WORDS[Math.floor(rng.next() * WORDS.length)];
  }
}

function argsFor(schema: unknown, rng: Rng, depth = 0): Obj {
  const out: Obj = {};
  if (!isObj(schema) || !isObj(schema.properties)) return out;
  for (const [name, prop] of Object.entries(schema.properties).slice(0, 32)) out[name] = valueFor(prop, rng, depth);
  return out;
}

/**
 * A seeded call of one offered tool (the forced one when `tool_choice` names it), with arguments
 * that fit its schema's properties; the id in the vendor's form (`prefix` + random letters).
 */
export function seedToolCall(offers: readonly ToolOffer[], rng: Rng, prefix: string): ToolCallSpec {
  const forced = offers.find((o) => o.forced);
  const tool = forced ?? offers[Math.floor(rng.next() * offers.length)]!;
  let id = prefix;
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  for (let i = 0; i < 24; i++) id += alphabet[Math.floor(rng.next() * alphabet.length)];
  return { id, name: tool.name, argsJson: JSON.stringify(argsFor(tool.schema, rng)) };
}

/** OpenAI chat `tools` (function tools) as offers; `tool_choice` marks a forced one, `none` offers nothing. */
export function openAIToolOffers(body: Obj): ToolOffer[] | undefined {
  if (!Array.isArray(body.tools) || body.tools.length === 0 || body.tool_choice === 'none') return undefined;
  const forced =
    isObj(body.tool_choice) && isObj(body.tool_choice.function) ? body.tool_choice.function.name : undefined;
  const offers: ToolOffer[] = [];
  for (const t of body.tools)
    if (isObj(t) && isObj(t.function) && typeof t.function.name === 'string')
      offers.push({ name: t.function.name, schema: t.function.parameters, forced: t.function.name === forced });
  return offers.length > 0 ? offers : undefined;
}

/**
 * OpenAI's check of tool turns: every `tool` message answers a call of the assistant message
 * before it, and an assistant message's calls are all answered before the next other message.
 */
export function checkOpenAIToolTurns(messages: unknown[]): ErrorSpec | undefined {
  let open = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Obj;
    if (m.role === 'tool') {
      if (typeof m.tool_call_id !== 'string' || !open.has(m.tool_call_id))
        return {
          kind: 'invalid_request',
          message:
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          param: `messages.[${i}].role`,
        };
      open.delete(m.tool_call_id);
      continue;
    }
    if (open.size > 0)
      return {
        kind: 'invalid_request',
        message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`,
        param: 'messages',
      };
    open = new Set(
      m.role === 'assistant' && Array.isArray(m.tool_calls) ? m.tool_calls.filter(isObj).map((c) => String(c.id)) : [],
    );
  }
  return undefined;
}

/** Anthropic `tools` as offers (`tool_choice: {type: tool}` forces one, `none` offers nothing). */
export function anthropicToolOffers(body: Obj): ToolOffer[] | undefined {
  if (!Array.isArray(body.tools) || body.tools.length === 0) return undefined;
  const choice = isObj(body.tool_choice) ? body.tool_choice : {};
  if (choice.type === 'none') return undefined;
  const offers = body.tools
    .filter((t): t is Obj => isObj(t) && typeof t.name === 'string')
    .map((t) => ({
      name: t.name as string,
      schema: t.input_schema,
      forced: choice.type === 'tool' && choice.name === t.name,
    }));
  return offers.length > 0 ? offers : undefined;
}

const blocks = (m: Obj, type: string): Obj[] =>
  Array.isArray(m.content) ? m.content.filter((b): b is Obj => isObj(b) && b.type === type) : [];

/**
 * Anthropic refuses a history where a `tool_use` id appears twice, anywhere in it, naming the
 * later block (observed: anthropics/claude-agent-sdk-python#522; docs/vendor-facts.md §19).
 */
function duplicateToolUse(messages: unknown[]): ErrorSpec | undefined {
  const seen = new Set<unknown>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Obj;
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    for (let j = 0; j < m.content.length; j++) {
      const b = m.content[j] as unknown;
      if (!isObj(b) || b.type !== 'tool_use') continue;
      if (seen.has(b.id))
        return { kind: 'invalid_request', message: `messages.${i}.content.${j}: \`tool_use\` ids must be unique` };
      seen.add(b.id);
    }
  }
  return undefined;
}

/**
 * Anthropic's check of tool turns: `tool_use` ids are unique in the history, a `tool_result` needs
 * its `tool_use` in the message just before, and every `tool_use` needs its `tool_result` in the
 * message just after.
 */
export function checkAnthropicToolTurns(messages: unknown[]): ErrorSpec | undefined {
  const duplicate = duplicateToolUse(messages);
  if (duplicate) return duplicate;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Obj;
    const prev = i > 0 ? (messages[i - 1] as Obj) : undefined;
    const uses = new Set(prev?.role === 'assistant' ? blocks(prev, 'tool_use').map((b) => b.id) : []);
    const results = blocks(m, 'tool_result');
    for (let j = 0; j < results.length; j++)
      if (m.role !== 'user' || !uses.has(results[j]!.tool_use_id))
        return {
          kind: 'invalid_request',
          message: `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(results[j]!.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        };
    const next = messages[i + 1] as Obj | undefined;
    if (m.role === 'assistant' && next) {
      const answered = new Set(blocks(next, 'tool_result').map((b) => b.tool_use_id));
      const missing = blocks(m, 'tool_use').filter((b) => !answered.has(b.id));
      if (missing.length > 0)
        return {
          kind: 'invalid_request',
          message: `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.map((b) => String(b.id)).join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        };
    }
  }
  return undefined;
}

/** Gemini `functionDeclarations` as offers (`mode: NONE` offers nothing; one allowed name under ANY forces it). */
export function geminiToolOffers(body: Obj): ToolOffer[] | undefined {
  if (!Array.isArray(body.tools)) return undefined;
  const cfg =
    isObj(body.toolConfig) && isObj(body.toolConfig.functionCallingConfig) ? body.toolConfig.functionCallingConfig : {};
  if (cfg.mode === 'NONE') return undefined;
  const allowed =
    Array.isArray(cfg.allowedFunctionNames) && cfg.allowedFunctionNames.length === 1
      ? cfg.allowedFunctionNames[0]
      : undefined;
  const offers: ToolOffer[] = [];
  for (const t of body.tools)
    if (isObj(t) && Array.isArray(t.functionDeclarations))
      for (const f of t.functionDeclarations)
        if (isObj(f) && typeof f.name === 'string')
          offers.push({ name: f.name, schema: f.parametersJsonSchema ?? f.parameters, forced: f.name === allowed });
  return offers.length > 0 ? offers : undefined;
}

/** Gemini's check: a `functionResponse` turn comes right after a model turn with a `functionCall`. */
export function checkGeminiToolTurns(contents: unknown[]): ErrorSpec | undefined {
  for (let i = 0; i < contents.length; i++) {
    const parts = (contents[i] as Obj).parts as unknown[];
    if (!parts.some((p) => isObj(p) && p.functionResponse !== undefined)) continue;
    const prev = i > 0 ? ((contents[i - 1] as Obj).parts as unknown[]) : [];
    if (!prev.some((p) => isObj(p) && p.functionCall !== undefined))
      return {
        kind: 'invalid_request',
        message:
          'Please ensure that function response turn comes immediately after a function call turn. And the number of function response parts should be equal to number of function call parts of the function call turn.',
      };
  }
  return undefined;
}

/** Converse `toolConfig.tools` as offers (`toolChoice.tool` forces one). */
export function converseToolOffers(body: Obj): ToolOffer[] | undefined {
  const cfg = isObj(body.toolConfig) ? body.toolConfig : {};
  if (!Array.isArray(cfg.tools)) return undefined;
  const forced = isObj(cfg.toolChoice) && isObj(cfg.toolChoice.tool) ? cfg.toolChoice.tool.name : undefined;
  const offers: ToolOffer[] = [];
  for (const t of cfg.tools)
    if (isObj(t) && isObj(t.toolSpec) && typeof t.toolSpec.name === 'string') {
      const schema = isObj(t.toolSpec.inputSchema) ? t.toolSpec.inputSchema.json : undefined;
      offers.push({ name: t.toolSpec.name, schema, forced: t.toolSpec.name === forced });
    }
  return offers.length > 0 ? offers : undefined;
}

/**
 * Converse's checks: a turn's `toolResult` blocks answer `toolUse` blocks of the turn before, and
 * share the turn with no conversation block (observed: langchain-ai/langchain-aws#141, BerriAI/litellm#6053,
 * docs/vendor-facts.md).
 */
export function checkConverseToolTurns(messages: unknown[]): ErrorSpec | undefined {
  const of = (m: unknown, key: string) =>
    isObj(m) && Array.isArray(m.content)
      ? m.content.filter((b): b is Obj => isObj(b) && isObj(b[key])).map((b) => b[key] as Obj)
      : [];
  for (let i = 0; i < messages.length; i++) {
    const results = of(messages[i], 'toolResult');
    if (results.length === 0) continue;
    const m = messages[i] as Obj & { content: unknown[] };
    if (m.content.length > results.length)
      return {
        kind: 'invalid_request',
        message: `messages.${i}.content: Conversation blocks and tool result blocks cannot be provided in the same turn.`,
      };
    const uses = new Set(i > 0 ? of(messages[i - 1], 'toolUse').map((u) => u.toolUseId) : []);
    if (results.length > uses.size || results.some((r) => !uses.has(r.toolUseId)))
      return {
        kind: 'invalid_request',
        message: `The number of toolResult blocks at messages.${i}.content exceeds the number of toolUse blocks of previous turn.`,
      };
  }
  return undefined;
}

/** Whether the last turn hands back tool results (the model then answers in text). */
export function endsWithToolResult(kind: 'openai' | 'anthropic' | 'gemini' | 'bedrock', turns: unknown[]): boolean {
  const last = turns.at(-1) as Obj | undefined;
  if (!last) return false;
  if (kind === 'bedrock')
    return Array.isArray(last.content) && last.content.some((b) => isObj(b) && isObj(b.toolResult));
  if (kind === 'openai') return last.role === 'tool';
  if (kind === 'anthropic') return blocks(last, 'tool_result').length > 0;
  return Array.isArray(last.parts) && last.parts.some((p) => isObj(p) && p.functionResponse !== undefined);
}
