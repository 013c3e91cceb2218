import type { ApiKind, VendorId } from '../vendors/types.js';

/** One piece of a prompt in order (tools, system, a message or content block), as prefix caching sees it. */
export interface PromptSegment {
  /** What the prefix hash covers (role and text). */
  text: string;
  /** Estimated tokens of this piece. */
  tokens: number;
  /** An explicit cache breakpoint after this piece (Anthropic `cache_control`, Bedrock `cachePoint`), with its TTL in ms. */
  breakpointTtlMs?: number;
}

const FIVE_MINUTES = 300_000;
const ONE_HOUR = 3_600_000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Tokens as `estimateTokens` counts them: four characters a token, three more per message for its framing. */
function tokensOf(text: string, startsMessage: boolean): number {
  return Math.ceil(text.length / 4) + (startsMessage ? 3 : 0);
}

function partText(part: unknown): string {
  if (typeof part === 'string') return part;
  if (!isObject(part)) return '';
  if (typeof part.text === 'string') return part.text;
  // Other parts (images, tool calls, tool results) count by their JSON: identical parts hash alike.
  return JSON.stringify(part);
}

/** `cache_control: {type: 'ephemeral', ttl?: '5m' | '1h'}` as a TTL, or undefined without one. */
function breakpointOf(v: unknown): number | undefined {
  if (!isObject(v) || !isObject(v.cache_control)) return undefined;
  return v.cache_control.ttl === '1h' ? ONE_HOUR : FIVE_MINUTES;
}

function push(out: PromptSegment[], role: string, text: string, startsMessage: boolean, ttl?: number): void {
  out.push({ text: `${role}\u0001${text}`, tokens: tokensOf(text, startsMessage), breakpointTtlMs: ttl });
}

function anthropicSegments(body: Record<string, unknown>): PromptSegment[] {
  const out: PromptSegment[] = [];
  // The cache prefix order is tools, system, messages.
  if (Array.isArray(body.tools))
    for (const t of body.tools) push(out, 'tool', JSON.stringify(t), false, breakpointOf(t));
  if (typeof body.system === 'string') push(out, 'system', body.system, false);
  else if (Array.isArray(body.system))
    for (const b of body.system) push(out, 'system', partText(b), false, breakpointOf(b));
  if (Array.isArray(body.messages)) {
    for (const m of body.messages) {
      if (!isObject(m)) continue;
      const role = String(m.role);
      if (Array.isArray(m.content)) {
        m.content.forEach((b, i) => push(out, role, partText(b), i === 0, breakpointOf(b)));
      } else push(out, role, partText(m.content), true);
    }
  }
  // Automatic caching: a top-level `cache_control` puts the breakpoint on the last block.
  const auto = breakpointOf(body);
  const last = out[out.length - 1];
  if (auto !== undefined && last && last.breakpointTtlMs === undefined) last.breakpointTtlMs = auto;
  return out;
}

/** A Converse `{cachePoint: {type: 'default', ttl?: '5m' | '1h'}}` block as a TTL, or undefined. */
function cachePointOf(v: unknown): number | undefined {
  if (!isObject(v) || !isObject(v.cachePoint)) return undefined;
  return v.cachePoint.ttl === '1h' ? ONE_HOUR : FIVE_MINUTES;
}

/** Pushes Converse blocks in order; a `cachePoint` block marks the end of the piece before it. */
function pushBlocks(out: PromptSegment[], role: string, blocks: unknown[], startsMessage: boolean): void {
  let first = startsMessage;
  for (const b of blocks) {
    const ttl = cachePointOf(b);
    if (ttl !== undefined) {
      const last = out[out.length - 1];
      if (last) last.breakpointTtlMs = ttl;
      continue;
    }
    push(out, role, partText(b), first);
    first = false;
  }
}

function converseSegments(body: Record<string, unknown>): PromptSegment[] {
  const out: PromptSegment[] = [];
  // As for Claude itself, the cache prefix order is tools, system, messages.
  const toolConfig = body.toolConfig;
  if (isObject(toolConfig) && Array.isArray(toolConfig.tools)) pushBlocks(out, 'tool', toolConfig.tools, false);
  if (Array.isArray(body.system)) pushBlocks(out, 'system', body.system, false);
  if (Array.isArray(body.messages))
    for (const m of body.messages)
      if (isObject(m) && Array.isArray(m.content)) pushBlocks(out, String(m.role), m.content, true);
  return out;
}

function openAIChatSegments(body: Record<string, unknown>): PromptSegment[] {
  const out: PromptSegment[] = [];
  if (Array.isArray(body.tools)) push(out, 'tools', JSON.stringify(body.tools), false);
  if (Array.isArray(body.messages)) {
    for (const m of body.messages) {
      if (!isObject(m)) continue;
      const text = Array.isArray(m.content) ? m.content.map(partText).join('') : partText(m.content ?? '');
      push(out, String(m.role), text, true);
    }
  }
  return out;
}

function responsesSegments(body: Record<string, unknown>): PromptSegment[] {
  const out: PromptSegment[] = [];
  if (Array.isArray(body.tools)) push(out, 'tools', JSON.stringify(body.tools), false);
  if (typeof body.instructions === 'string') push(out, 'instructions', body.instructions, true);
  if (typeof body.input === 'string') push(out, 'user', body.input, true);
  else if (Array.isArray(body.input)) {
    for (const item of body.input) {
      if (!isObject(item)) continue;
      const c = item.content;
      const text = Array.isArray(c) ? c.map(partText).join('') : typeof c === 'string' ? c : JSON.stringify(item);
      push(out, String(item.role ?? item.type), text, true);
    }
  }
  return out;
}

function geminiSegments(body: Record<string, unknown>): PromptSegment[] {
  const out: PromptSegment[] = [];
  if (Array.isArray(body.tools)) push(out, 'tools', JSON.stringify(body.tools), false);
  const sys = body.systemInstruction;
  if (isObject(sys) && Array.isArray(sys.parts)) push(out, 'system', sys.parts.map(partText).join(''), false);
  if (Array.isArray(body.contents)) {
    for (const c of body.contents) {
      if (!isObject(c) || !Array.isArray(c.parts)) continue;
      push(out, String(c.role ?? 'user'), c.parts.map(partText).join(''), true);
    }
  }
  return out;
}

/**
 * A validated request body as the ordered pieces a prefix cache compares, for the vendors that
 * cache prompts; an empty list for the others.
 */
export function promptSegments(vendor: VendorId, api: ApiKind | undefined, body: unknown): PromptSegment[] {
  if (!isObject(body) || api === 'embeddings') return [];
  if (vendor === 'anthropic') return anthropicSegments(body);
  // Bedrock's InvokeModel takes Claude's Messages body, `cache_control` and all.
  if (vendor === 'bedrock') return api === 'invoke' ? anthropicSegments(body) : converseSegments(body);
  if (vendor === 'gemini' || vendor === 'vertex-ai') return geminiSegments(body);
  if (vendor === 'openai' || vendor === 'azure-openai')
    return api === 'responses' ? responsesSegments(body) : openAIChatSegments(body);
  return [];
}
