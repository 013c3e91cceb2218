import type { ChatMessage, ChatRequest } from '../core/types.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One OpenAI tool call on an assistant message. */
export interface ToolCall {
  id: string;
  type?: string;
  function: { name: string; arguments: string };
}

/** An assistant message's tool calls (malformed entries left out). */
export function toolCallsOf(m: ChatMessage): ToolCall[] {
  if (!Array.isArray(m.tool_calls)) return [];
  return (m.tool_calls as unknown[]).filter(
    (c): c is ToolCall =>
      isObj(c) && typeof c.id === 'string' && isObj(c.function) && typeof c.function.name === 'string',
  );
}

/** A tool call's arguments as an object (`{}` when they are not a JSON object). */
export function argumentsOf(c: ToolCall): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(c.function.arguments || '{}');
    return isObj(v) ? v : {};
  } catch {
    return {};
  }
}

/** A content part as text, image or nothing the adapters know. */
export type Part =
  | { kind: 'text'; text: string; hints: Obj }
  | { kind: 'image'; url: string; mediaType?: string; data?: string; hints: Obj };

/** A message's content as parts; data URLs split into media type and base64 data. */
export function partsOf(content: ChatMessage['content']): Part[] {
  if (typeof content === 'string') return [{ kind: 'text', text: content, hints: {} }];
  if (!Array.isArray(content)) return [];
  const out: Part[] = [];
  for (const p of content) {
    if (!isObj(p)) continue;
    const hints: Obj = p.cache_control != null ? { cache_control: p.cache_control } : {};
    if (typeof p.text === 'string') out.push({ kind: 'text', text: p.text, hints });
    else if (p.type === 'image_url') {
      const url = isObj(p.image_url) ? p.image_url.url : p.image_url;
      if (typeof url !== 'string') continue;
      const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
      out.push(data ? { kind: 'image', url, mediaType: data[1], data: data[2], hints } : { kind: 'image', url, hints });
    }
  }
  return out;
}

/** The function tools of a request, as name, description and JSON schema. */
export function toolsOf(
  req: ChatRequest,
): Array<{ name: string; description?: string; parameters: unknown; hints: Obj }> {
  if (!Array.isArray(req.tools)) return [];
  const out: Array<{ name: string; description?: string; parameters: unknown; hints: Obj }> = [];
  for (const t of req.tools as unknown[]) {
    if (!isObj(t) || !isObj(t.function) || typeof t.function.name !== 'string') continue;
    const f = t.function;
    out.push({
      name: f.name as string,
      ...(typeof f.description === 'string' ? { description: f.description } : {}),
      parameters: f.parameters ?? { type: 'object', properties: {} },
      hints: t.cache_control != null ? { cache_control: t.cache_control } : {},
    });
  }
  return out;
}

/** `tool_choice` as one of four modes (and the forced function's name). */
export function toolChoiceOf(
  req: ChatRequest,
): { mode: 'auto' | 'none' | 'required' | 'function'; name?: string } | undefined {
  const c = req.tool_choice;
  if (c === 'auto' || c === 'none' || c === 'required') return { mode: c };
  if (isObj(c) && isObj(c.function) && typeof c.function.name === 'string')
    return { mode: 'function', name: c.function.name };
  return undefined;
}

/** `response_format` as a JSON schema (or `{}` for plain JSON mode), when JSON is asked for. */
export function jsonFormatOf(req: ChatRequest): { schema?: unknown; name?: string } | undefined {
  const f = req.response_format;
  if (!isObj(f)) return undefined;
  if (f.type === 'json_object') return {};
  if (f.type === 'json_schema' && isObj(f.json_schema))
    return {
      schema: f.json_schema.schema,
      name: typeof f.json_schema.name === 'string' ? f.json_schema.name : undefined,
    };
  return undefined;
}

/**
 * The tools a conversation's history called, declared with an open schema: Anthropic and Bedrock
 * refuse tool blocks in a request that defines no tools.
 */
export function historyTools(req: ChatRequest): Array<{ name: string; parameters: unknown; hints: Obj }> {
  const names = new Set<string>();
  for (const m of req.messages) for (const c of toolCallsOf(m)) names.add(c.function.name);
  return [...names].map((name) => ({ name, parameters: { type: 'object' }, hints: {} }));
}
